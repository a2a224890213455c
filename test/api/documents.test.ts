import { readFileSync } from 'node:fs';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { buildDocuments, documentText, DOCUMENT_NAMES } from '@relay/openapi';
import { ContractChecker } from './support/contract';

/**
 * The committed API reference (docs/api) is what the code generates now, it is valid OpenAPI 3.1 by
 * a validator this project did not write, and every example in it fits its own schema.
 */
const ROOT = path.resolve(__dirname, '..', '..');
const documents = buildDocuments();

type Media = { schema?: unknown; example?: unknown };
type Op = { requestBody?: { content: Record<string, Media> }; responses: Record<string, { content?: Record<string, Media> }> };

describe('the API reference documents', () => {
  it.each(DOCUMENT_NAMES)('When the generator runs now, then docs/api/%s.json is exactly the committed file', (name) => {
    const committed = readFileSync(path.join(ROOT, 'docs', 'api', `${name}.json`), 'utf8');
    const generated = documentText(documents[name]).split('\n');
    const lines = committed.split('\n');
    const first = generated.findIndex((line, i) => line !== lines[i]);
    // On failure: run `npm run docs:api` and commit the result.
    expect({ firstDifferentLine: first === -1 && lines.length === generated.length ? null : first + 1, generated: generated[first], committed: lines[first] }).toEqual({
      firstDifferentLine: null,
      generated: undefined,
      committed: undefined,
    });
  });

  it.each(DOCUMENT_NAMES)('When %s.json is validated by @apidevtools/swagger-parser, then it is valid OpenAPI 3.1 with every reference resolved', async (name) => {
    const api = (await SwaggerParser.validate(structuredClone(documents[name]) as never)) as { openapi: string };
    expect(api.openapi).toBe('3.1.0');
  });

  it.each(DOCUMENT_NAMES)('When every example of %s.json is held against its schema, then each one fits', (name) => {
    const checker = new ContractChecker([]);
    const paths = (documents[name] as { paths: Record<string, Record<string, Op>> }).paths;
    const problems: string[] = [];
    let examples = 0;
    const escape = (t: string) => t.replace(/~/g, '~0').replace(/\//g, '~1');
    for (const [template, item] of Object.entries(paths)) {
      for (const [method, op] of Object.entries(item)) {
        const base = `/paths/${escape(template)}/${method}`;
        const media: [string, Media][] = [
          ...Object.entries(op.requestBody?.content ?? {}).map(([type, m]): [string, Media] => [`${base}/requestBody/content/${escape(type)}`, m]),
          ...Object.entries(op.responses).flatMap(([status, r]) =>
            Object.entries(r.content ?? {}).map(([type, m]): [string, Media] => [`${base}/responses/${status}/content/${escape(type)}`, m]),
          ),
        ];
        for (const [pointer, m] of media) {
          if (m.example === undefined) continue;
          examples += 1;
          const problem = checker.validate(name, `${pointer}/schema`, m.example);
          if (problem) problems.push(`${method.toUpperCase()} ${template} ${pointer}: ${problem}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(examples).toBeGreaterThan(Object.keys(paths).length);
  });

  it('When an operation is listed, then it has an id, a summary, a success answer with an example and at least one error answer', () => {
    const gaps: string[] = [];
    for (const name of DOCUMENT_NAMES) {
      for (const [template, item] of Object.entries((documents[name] as { paths: Record<string, Record<string, Op & { operationId?: string; summary?: string }>> }).paths)) {
        for (const [method, op] of Object.entries(item)) {
          const statuses = Object.keys(op.responses);
          const success = statuses.filter((s) => s.startsWith('2') || s.startsWith('3'));
          if (!op.operationId || !op.summary) gaps.push(`${name} ${method} ${template}: no id or summary`);
          if (success.length === 0) gaps.push(`${name} ${method} ${template}: no success answer`);
          if (!statuses.some((s) => s.startsWith('4') || s.startsWith('5'))) gaps.push(`${name} ${method} ${template}: no error answer`);
          if (op.requestBody && !Object.values(op.requestBody.content).some((m) => m.example !== undefined)) gaps.push(`${name} ${method} ${template}: no request example`);
        }
      }
    }
    expect(gaps).toEqual([]);
  });
});
