import { z } from 'zod';

/**
 * zod schemas to the JSON Schema (2020-12, the dialect of OpenAPI 3.1) of a document. Requests are
 * described as the service receives them (`input`: a query `gameId` is text with a pattern), answers
 * as they leave (`output`: objects allow no field beyond the listed ones).
 */
export type JsonSchema = Record<string, unknown>;
export type Io = 'input' | 'output';

/**
 * Named schemas (`.meta({ id })`) become components of the document: each conversion hands its
 * named parts to `components`, and the references point there.
 */
export function jsonSchema(schema: z.ZodType, io: Io, components: Record<string, JsonSchema> = {}): JsonSchema {
  const converted = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' });
  const relinked = JSON.parse(JSON.stringify(converted).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema;
  const { $schema: _dialect, $defs, ...rest } = relinked;
  for (const [id, definition] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) {
    const known = components[id];
    if (known && JSON.stringify(known) !== JSON.stringify(definition)) throw new Error(`Two different schemas are both named ${id}`);
    components[id] = definition;
  }
  if (typeof rest.id === 'string') {
    // The schema itself is named: it becomes a component and the answer refers to it.
    const { id, ...definition } = rest;
    components[id] = definition;
    return { $ref: `#/components/schemas/${id}` };
  }
  return rest;
}

export interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header';
  required: boolean;
  description?: string;
  schema: JsonSchema;
}

/** The properties of an object schema as OpenAPI parameters (query strings and path segments). */
export function parameters(schema: z.ZodType, where: 'query' | 'path', descriptions: Record<string, string> = {}): Parameter[] {
  const object = jsonSchema(schema, 'input');
  const properties = (object.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((object.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    const text = descriptions[name] ?? (typeof description === 'string' ? description : undefined);
    return {
      name,
      in: where,
      required: where === 'path' || required.has(name),
      ...(text ? { description: text } : {}),
      schema: rest,
    };
  });
}

/** A JSON request body from the route's own schema, with one worked example. */
export function jsonBody(schema: z.ZodType, example: unknown, description?: string) {
  return {
    required: true,
    ...(description ? { description } : {}),
    content: { 'application/json': { schema: jsonSchema(schema, 'input'), example } },
  };
}

/** ISO-8601 UTC with milliseconds, as every timestamp leaves the platform. */
export const timestamp = z.string().meta({ format: 'date-time', examples: ['2026-11-21T20:47:56.123Z'] });
/** Money as it leaves the platform: a JSON number, rounded to cents. */
export const money = z.number().meta({ description: 'A JSON number with at most 2 decimals.' });
