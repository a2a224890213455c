import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildDocuments, documentText, DOCUMENT_NAMES } from './index';

/**
 * `npm run docs:api`: writes docs/api/{game,casino,admin}.json from the services' schemas.
 * `--check`: writes nothing and fails when a committed document differs from what the code says now.
 */
const root = path.resolve(__dirname, '..', '..', '..');
const outDir = path.join(root, 'docs', 'api');
const check = process.argv.includes('--check');
const documents = buildDocuments();
let stale = 0;
mkdirSync(outDir, { recursive: true });
for (const name of DOCUMENT_NAMES) {
  const file = path.join(outDir, `${name}.json`);
  const text = documentText(documents[name]);
  let current = '';
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    // not generated yet
  }
  if (current === text) continue;
  if (check) {
    stale += 1;
    console.error(`docs/api/${name}.json is out of date: run npm run docs:api`);
  } else {
    writeFileSync(file, text);
    console.log(`wrote docs/api/${name}.json`);
  }
}
if (stale > 0) process.exitCode = 1;
