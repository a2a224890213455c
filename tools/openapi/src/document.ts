import type { z } from 'zod';
import { ERROR_SCHEMAS, errorResponses, type ErrorStyle, type ErrorTable } from './errors';
import { jsonSchema, parameters, type JsonSchema, type Parameter } from './schema';

export type Method = 'get' | 'put' | 'post' | 'delete';

export interface Operation {
  method: Method;
  path: string;
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  /** Omitted: the document's default security. `[]`: no authentication. */
  security?: Record<string, string[]>[];
  query?: z.ZodType;
  path_?: z.ZodType;
  /** Descriptions of parameters whose schema carries none. */
  parameterText?: Record<string, string>;
  body?: { schema: z.ZodType; example: unknown; description?: string };
  success: {
    status: number;
    description: string;
    schema?: z.ZodType;
    example?: unknown;
    headers?: Record<string, unknown>;
    /** A streamed CSV answer instead of JSON: what its lines hold, and a short example. */
    csv?: { description: string; example: string };
  };
  /** Another success the route answers with the same body (a create repeated: 200 beside 201). */
  alsoSuccess?: { status: number; description: string; schema: z.ZodType; example: unknown };
  errorStyle: ErrorStyle;
  errors: ErrorTable;
  /** The route answers a browser that prefers HTML with an error page (the launch). */
  htmlErrors?: boolean;
}

export interface Info {
  title: string;
  version: string;
  description: string;
}

/** One OpenAPI 3.1 document, assembled operation by operation from the routes' schemas. */
export class ApiDocument {
  private readonly paths: Record<string, Record<string, unknown>> = {};
  private readonly schemas: Record<string, JsonSchema> = { ...ERROR_SCHEMAS };

  constructor(
    private readonly info: Info,
    private readonly head: { servers: unknown[]; securitySchemes: Record<string, unknown>; security: Record<string, string[]>[]; tags: { name: string; description: string }[] },
  ) {}

  add(op: Operation): this {
    const parameterList: Parameter[] = [
      ...(op.path_ ? parameters(op.path_, 'path', op.parameterText) : []),
      ...(op.query ? parameters(op.query, 'query', op.parameterText) : []),
    ];
    const success: Record<string, unknown> = { description: op.success.description };
    if (op.success.headers) success.headers = op.success.headers;
    if (op.success.csv) {
      success.content = { 'text/csv': { schema: { type: 'string', description: op.success.csv.description }, example: op.success.csv.example } };
    } else if (op.success.schema) {
      success.content = { 'application/json': { schema: this.schema(op.success.schema, 'output'), example: op.success.example } };
    }
    const operation: Record<string, unknown> = {
      operationId: op.operationId,
      summary: op.summary,
      description: op.description,
      tags: [op.tag],
      ...(op.security ? { security: op.security } : {}),
      ...(parameterList.length ? { parameters: parameterList } : {}),
      ...(op.body
        ? {
            requestBody: {
              required: true,
              ...(op.body.description ? { description: op.body.description } : {}),
              content: { 'application/json': { schema: this.schema(op.body.schema, 'input'), example: op.body.example } },
            },
          }
        : {}),
      responses: {
        [String(op.success.status)]: success,
        ...(op.alsoSuccess
          ? { [String(op.alsoSuccess.status)]: { description: op.alsoSuccess.description, content: { 'application/json': { schema: this.schema(op.alsoSuccess.schema, 'output'), example: op.alsoSuccess.example } } } }
          : {}),
        ...errorResponses(op.errorStyle, op.errors, op.htmlErrors),
      },
    };
    const item = (this.paths[op.path] ??= {});
    if (item[op.method]) throw new Error(`${op.method.toUpperCase()} ${op.path} is described twice`);
    item[op.method] = operation;
    return this;
  }

  /** Schemas of the document that no operation references directly (the casino answers). */
  component(name: string, schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    return this.schema(schema, io);
  }

  toJSON(): Record<string, unknown> {
    const sorted = Object.fromEntries(Object.entries(this.schemas).sort(([a], [b]) => a.localeCompare(b)));
    return {
      openapi: '3.1.0',
      info: this.info,
      servers: this.head.servers,
      security: this.head.security,
      tags: this.head.tags,
      paths: this.paths,
      components: { schemas: sorted, securitySchemes: this.head.securitySchemes },
    };
  }

  private schema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    return jsonSchema(schema, io, this.schemas);
  }
}
