import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { buildDocuments, type DocumentName } from '@relay/openapi';

/**
 * Holds answers of the platform against the API reference: the operation is found from the method
 * and path, the answer's status must be one the operation documents, and a JSON body must fit that
 * status's schema (answer objects allow no undocumented field). Every operation seen is counted, so
 * a suite can prove it exercised each documented success and error.
 */
export interface Answer {
  status: number;
  text: string;
  headers: Headers;
}

interface OperationRef {
  document: DocumentName;
  operationId: string;
  pointer: string;
  pattern: RegExp;
  method: string;
  template: string;
}

type Document = { paths: Record<string, Record<string, { operationId: string; responses: Record<string, ResponseObject> }>> };
type ResponseObject = { content?: Record<string, { schema?: unknown }>; headers?: Record<string, { required?: boolean }> };

const escape = (text: string) => text.replace(/~/g, '~0').replace(/\//g, '~1');

export class ContractChecker {
  readonly documents = buildDocuments();
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly operations: OperationRef[] = [];
  private readonly validators = new Map<string, ValidateFunction>();
  /** operationId -> statuses answered and found valid. */
  readonly seen = new Map<string, Set<number>>();

  constructor(names: DocumentName[] = ['game', 'admin', 'backoffice']) {
    addFormats(this.ajv);
    for (const name of ['game', 'casino', 'admin', 'backoffice'] as DocumentName[]) this.ajv.addSchema(this.documents[name], name);
    for (const name of names) {
      const doc = this.documents[name] as unknown as Document;
      for (const [template, item] of Object.entries(doc.paths)) {
        const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
        for (const [method, op] of Object.entries(item)) {
          this.operations.push({ document: name, operationId: op.operationId, pointer: `/paths/${escape(template)}/${method}`, pattern, method, template });
        }
      }
    }
  }

  /** Every operation of the checked documents, as `document:operationId`. */
  operationIds(): string[] {
    return this.operations.map((op) => `${op.document}:${op.operationId}`);
  }

  /** The documented operation a request reaches, or undefined for a path the reference does not list. */
  find(method: string, url: string): OperationRef | undefined {
    const path = new URL(url, 'http://x').pathname;
    return this.operations.find((op) => op.method === method.toLowerCase() && op.pattern.test(path));
  }

  /** Throws, naming the operation, when the answer is not what the reference documents. */
  check(method: string, url: string, answer: Answer): void {
    const op = this.find(method, url);
    if (!op) throw new Error(`${method} ${url}: no operation of the reference matches`);
    const label = `${op.document}:${op.operationId} answered ${answer.status}`;
    const doc = this.documents[op.document] as unknown as Document;
    const responses = doc.paths[op.template][op.method].responses;
    const key = String(answer.status) in responses ? String(answer.status) : `${String(answer.status)[0]}XX`;
    const response = responses[key];
    if (!response) throw new Error(`${label}, a status the reference does not document for it: ${answer.text.slice(0, 300)}`);
    for (const [name, header] of Object.entries(response.headers ?? {})) {
      if (header.required === true && answer.headers.get(name) === null) throw new Error(`${label} without its documented ${name} header`);
    }
    const type = (answer.headers.get('content-type') ?? '').split(';')[0].trim();
    if (response.content) {
      if (!response.content[type]) throw new Error(`${label} with content type "${type}", which the reference does not document`);
      if (type === 'application/json') {
        const validate = this.validator(op.document, `${op.pointer}/responses/${key}/content/application~1json/schema`);
        const body = JSON.parse(answer.text) as unknown;
        if (!validate(body)) {
          throw new Error(`${label} with a body outside the reference: ${this.ajv.errorsText(validate.errors)}\n${answer.text.slice(0, 1000)}`);
        }
      }
    } else if (answer.text !== '' && type === 'application/json') {
      throw new Error(`${label} with a JSON body the reference does not describe`);
    }
    const statuses = this.seen.get(`${op.document}:${op.operationId}`) ?? new Set<number>();
    statuses.add(answer.status);
    this.seen.set(`${op.document}:${op.operationId}`, statuses);
  }

  /** Validates a value against any schema of a document, by JSON pointer (request bodies of the casino protocol). */
  validate(document: DocumentName, pointer: string, value: unknown): string | null {
    const validate = this.validator(document, pointer);
    return validate(value) ? null : this.ajv.errorsText(validate.errors);
  }

  /** Operations without a validated success answer, or without a validated error answer. */
  missing(): string[] {
    return this.operationIds().flatMap((id) => {
      const statuses = [...(this.seen.get(id) ?? [])];
      const gaps: string[] = [];
      if (!statuses.some((s) => s < 400)) gaps.push(`${id}: no success answer checked`);
      if (!statuses.some((s) => s >= 400)) gaps.push(`${id}: no error answer checked`);
      return gaps;
    });
  }

  private validator(document: DocumentName, pointer: string): ValidateFunction {
    const ref = `${document}#${pointer}`;
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validate);
    }
    return validate;
  }
}
