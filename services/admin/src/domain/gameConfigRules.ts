import type { ErrorDetail } from '@relay/shared';

/**
 * The spec's game config template and the casino configs checked against it. Pure functions: the
 * template route, the casino config route and the template change check all use the same rules,
 * so "would this change break a casino's config" means exactly "would that config now be refused".
 */
export const PROPERTY_TYPES = ['STRING', 'NUMBER', 'BOOLEAN', 'DROPDOWN'] as const;
export type PropertyType = (typeof PROPERTY_TYPES)[number];
export type DropdownValue = string | number;
export type ConfigValue = string | number | boolean;
export type ConfigValues = Record<string, ConfigValue>;

export interface TemplateProperty {
  name: string;
  type: PropertyType;
  values?: DropdownValue[];
  required: boolean;
  default?: ConfigValue;
}

/**
 * The spec's reserved names, plus the keys that would corrupt a plain JavaScript object on the
 * game's side when it reads `gameConfig.values`.
 */
export const RESERVED_NAMES = new Set(['providerId', 'gameId', '_id', '__v', 'id', 'createdAt', 'updatedAt', '__proto__', 'constructor', 'prototype']);

/** Rules on the template itself; shape (types of the attributes) is the route's zod schema. */
export function templateProblems(properties: TemplateProperty[]): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const seen = new Set<string>();
  properties.forEach((p, i) => {
    const at = `properties.${i}`;
    if (RESERVED_NAMES.has(p.name)) problems.push({ path: `${at}.name`, message: `"${p.name}" is a reserved name` });
    if (seen.has(p.name)) problems.push({ path: `${at}.name`, message: `"${p.name}" is defined twice` });
    seen.add(p.name);
    if (p.type === 'DROPDOWN') {
      if (!p.values || p.values.length === 0) problems.push({ path: `${at}.values`, message: 'a DROPDOWN needs its allowed values' });
      else if (new Set(p.values).size !== p.values.length) problems.push({ path: `${at}.values`, message: 'allowed values must be distinct' });
    } else if (p.values !== undefined) {
      problems.push({ path: `${at}.values`, message: 'only a DROPDOWN carries allowed values' });
    }
    if (p.default !== undefined && !fitsType(p, p.default)) {
      problems.push({ path: `${at}.default`, message: `default does not fit type ${describe(p)}` });
    }
  });
  return problems;
}

/** A casino's overrides against a template: the four refusals of docs/api/admin.json. */
export function configProblems(properties: TemplateProperty[], overrides: Record<string, unknown>): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const byName = new Map(properties.map((p) => [p.name, p]));
  for (const [name, value] of Object.entries(overrides)) {
    const property = byName.get(name);
    if (!property) problems.push({ path: `values.${name}`, message: `unknown property "${name}"` });
    else if (!fitsType(property, value)) problems.push({ path: `values.${name}`, message: `value does not fit type ${describe(property)}` });
  }
  for (const p of properties) {
    if (p.required && p.default === undefined && !Object.hasOwn(overrides, p.name)) {
      problems.push({ path: `values.${p.name}`, message: `required property "${p.name}" has no default and must be answered` });
    }
  }
  return problems;
}

/** What the game reads: template defaults with the casino's overrides applied. */
export function effectiveValues(properties: TemplateProperty[], overrides: ConfigValues): ConfigValues {
  const values: ConfigValues = {};
  for (const p of properties) {
    if (Object.hasOwn(overrides, p.name)) values[p.name] = overrides[p.name];
    else if (p.default !== undefined) values[p.name] = p.default;
  }
  return values;
}

/**
 * What a template change would break in one casino's stored overrides (spec: template change
 * rules): every reason the config would now be refused, plus a changed type under a value the
 * casino set, even when that value happens to fit the new type (the casino chose it for the old
 * meaning). Overrides of removed properties are left out: see templates.ts.
 */
export function templateChangeProblems(before: TemplateProperty[], after: TemplateProperty[], overrides: ConfigValues): ErrorDetail[] {
  const kept = withoutRemovedProperties(after, overrides);
  const problems = configProblems(after, kept);
  const typeBefore = new Map(before.map((p) => [p.name, p.type]));
  for (const p of after) {
    const previous = typeBefore.get(p.name);
    const path = `values.${p.name}`;
    if (Object.hasOwn(kept, p.name) && previous !== undefined && previous !== p.type && !problems.some((x) => x.path === path)) {
      problems.push({ path, message: `type of "${p.name}" changes from ${previous} to ${p.type} under the casino's value` });
    }
  }
  return problems;
}

/** Overrides of properties the template no longer has; see the template change use case. */
export function withoutRemovedProperties(properties: TemplateProperty[], overrides: ConfigValues): ConfigValues {
  const names = new Set(properties.map((p) => p.name));
  return Object.fromEntries(Object.entries(overrides).filter(([name]) => names.has(name)));
}

function fitsType(p: TemplateProperty, value: unknown): boolean {
  switch (p.type) {
    case 'STRING':
      return typeof value === 'string';
    case 'NUMBER':
      return typeof value === 'number' && Number.isFinite(value);
    case 'BOOLEAN':
      return typeof value === 'boolean';
    case 'DROPDOWN':
      return (typeof value === 'string' || typeof value === 'number') && (p.values ?? []).includes(value);
  }
}

function describe(p: TemplateProperty): string {
  return p.type === 'DROPDOWN' ? `DROPDOWN (one of ${JSON.stringify(p.values ?? [])})` : p.type;
}
