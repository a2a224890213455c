import type { ConfigValue, PropertyType, TemplateProperty } from './adminApi';

/**
 * What the provisioning forms type as text and send as JSON. Text that is no number where a number
 * belongs is sent as typed (never NaN, which JSON would turn into null): the API then refuses it
 * naming the field, and the person sees why.
 */
const NUMBER = /^-?\d+(\.\d+)?$/;

export const asScalar = (text: string): string | number => (NUMBER.test(text) ? Number(text) : text);

/** An amount (bet limits): empty is null (none), a number as a JSON number; the API checks the two decimals. */
export function amountOrNull(text: string): number | string | null {
  const t = text.trim();
  return t === '' ? null : asScalar(t);
}

/** A template property as typed in the editor: every attribute text until it is sent. */
export interface Row {
  key: number;
  name: string;
  type: PropertyType;
  values: string;
  required: boolean;
  default: string;
}

let nextKey = 1;

export const newRow = (): Row => ({ key: nextKey++, name: '', type: 'STRING', values: '', required: false, default: '' });

export const toRow = (p: TemplateProperty): Row => ({
  key: nextKey++,
  name: p.name,
  type: p.type,
  values: (p.values ?? []).join(', '),
  required: p.required,
  default: p.default === undefined ? '' : String(p.default),
});

/** Dropdown values separated by commas (numbers as numbers); a default typed as its property's type. */
export function toProperty(r: Row): TemplateProperty {
  const values = r.type === 'DROPDOWN' ? r.values.split(',').map((v) => v.trim()).filter(Boolean).map(asScalar) : undefined;
  const d = r.default.trim();
  const def = d === '' ? undefined : typed(r.type, d, values);
  return { name: r.name.trim(), type: r.type, ...(values ? { values } : {}), required: r.required, ...(def !== undefined ? { default: def } : {}) };
}

function typed(type: PropertyType, text: string, values: (string | number)[] | undefined): ConfigValue {
  if (type === 'NUMBER') return asScalar(text);
  if (type === 'BOOLEAN') return text === 'true' ? true : text === 'false' ? false : text;
  if (type === 'DROPDOWN') return values?.find((v) => String(v) === text) ?? text;
  return text;
}

/** A casino's value of a template property, typed from the form's text. */
export function parseValue(p: TemplateProperty, text: string): ConfigValue {
  return p.type === 'STRING' ? text : typed(p.type, text.trim(), p.values);
}
