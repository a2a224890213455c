#!/usr/bin/env node
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createLogger, loadConfig } from '@relay/shared';
import { ledgerJobs } from './index';
import { restoreMonth } from './restore';
import { runJobOnce } from './scheduler';
import { archiveStore } from './store';
import { verifyChain } from './verify';

const out = (line: string) => process.stdout.write(`${line}\n`);

/**
 * `npm run ledger -- <command>` (docs/ledger.md):
 *   archive                                   run the retention job once (under its lock)
 *   verify [--deep]                           walk the archive chain; exit 1 on any problem
 *   restore --month YYYY-MM --database URL    load one archived month into a database
 * Configuration from the environment, as the admin service reads it.
 */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      month: { type: 'string' },
      database: { type: 'string' },
      deep: { type: 'boolean' },
    },
  });
  const config = loadConfig(process.env, { process: 'admin' });
  const logger = createLogger({ service: 'ledger-cli', level: config.LOG_LEVEL });
  const store = archiveStore(config);
  switch (command) {
    case 'archive': {
      const job = ledgerJobs(config, logger).find((j) => j.name === 'retention')!;
      const ran = await runJobOnce(config.DATABASE_URL, job, logger);
      out(ran ? 'retention job done' : 'retention job skipped: another process runs it');
      return 0;
    }
    case 'verify': {
      // With a bucket, the bucket is the archive: verify downloads every month into an empty
      // staging directory of its own, so a copy left in LEDGER_ARCHIVE_DIR cannot hide an object
      // removed or edited in the bucket.
      const staging = config.LEDGER_ARCHIVE_S3_BUCKET ? await fs.mkdtemp(path.join(os.tmpdir(), 'relay-ledger-verify-')) : null;
      const client = new pg.Client({ connectionString: config.DATABASE_URL, application_name: 'relay-ledger-verify' });
      await client.connect();
      try {
        const source = staging ? archiveStore({ ...config, LEDGER_ARCHIVE_DIR: staging }) : store;
        const report = await verifyChain(client, source, { deep: values.deep });
        for (const problem of report.problems) out(`PROBLEM ${problem}`);
        out(`${report.months.length} archived months checked${report.problems.length ? `, ${report.problems.length} problems` : ', chain intact'}`);
        return report.problems.length ? 1 : 0;
      } finally {
        await client.end();
        if (staging) await fs.rm(staging, { recursive: true, force: true });
      }
    }
    case 'restore': {
      if (!values.month || !values.database) throw new Error('restore needs --month YYYY-MM and --database URL');
      const report = await restoreMonth(store, values.month, values.database);
      out(JSON.stringify(report, null, 2));
      return 0;
    }
    default:
      console.error('usage: npm run ledger -- archive | verify [--deep] | restore --month YYYY-MM --database URL');
      return 2;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: Error) => {
      console.error(`ledger: ${err.message}`);
      process.exit(1);
    },
  );
}

export { main };
