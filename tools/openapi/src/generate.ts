import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { buildDocuments, documentText, DOCUMENT_NAMES } from './index';

/**
 * `npm run docs:api`: writes docs/api/{game,casino,admin,backoffice}.json from the services' schemas.
 * `--check` (CI): writes nothing; fails when a committed document differs from what the code says
 * now, or when a document is not valid OpenAPI 3.1 by @apidevtools/swagger-parser.
 */
const root = path.resolve(__dirname, '..', '..', '..');
const outDir = path.join(root, 'docs', 'api');
const check = process.argv.includes('--check');

async function main(): Promise<number> {
  const documents = buildDocuments();
  let problems = 0;
  if (!check) mkdirSync(outDir, { recursive: true });
  for (const name of DOCUMENT_NAMES) {
    const file = path.join(outDir, `${name}.json`);
    const text = documentText(documents[name]);
    let current = '';
    try {
      current = readFileSync(file, 'utf8');
    } catch {
      // not generated yet
    }
    if (check) {
      if (current !== text) {
        problems += 1;
        console.error(`docs/api/${name}.json is out of date: run npm run docs:api and commit it`);
      }
      try {
        await SwaggerParser.validate(structuredClone(documents[name]) as never);
        console.log(`docs/api/${name}.json: valid OpenAPI ${String(documents[name].openapi)}`);
      } catch (err) {
        problems += 1;
        console.error(`docs/api/${name}.json is not valid: ${(err as Error).message}`);
      }
    } else if (current !== text) {
      writeFileSync(file, text);
      console.log(`wrote docs/api/${name}.json`);
    }
  }
  return problems === 0 ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);
