#!/usr/bin/env node
/* global require, process, __dirname */
/* eslint-disable @typescript-eslint/no-require-imports -- a plain CommonJS launcher: it runs before anything is built */
'use strict';
// The `relay-certify` command. Runs the built kit; after a bare `npm ci` (nothing built yet) it
// builds the kit first, so `npx relay-certify` works from a fresh clone.
const { existsSync } = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const root = path.join(__dirname, '..');
const cli = path.join(root, 'dist', 'cli.js');
if (!existsSync(cli)) {
  process.stderr.write('relay-certify: building the kit first (tsc -b tools/certify)\n');
  const built = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', path.join(root, 'tsconfig.json')], { stdio: ['ignore', 2, 2] });
  if (built.status !== 0) {
    process.stderr.write('relay-certify: the build failed; run `npm run build` and try again\n');
    process.exit(2);
  }
}
require(cli)
  .main(process.argv.slice(2))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`relay-certify: ${err && err.message ? err.message : String(err)}\n`);
      process.exitCode = 2;
    },
  );
