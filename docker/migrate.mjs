/* global process, console */
// One-shot preparation of both databases (compose service `migrate`, Kubernetes Job
// `relay-migrate`), as `npm start` does it (prepareDatabases, docs/reporting-database.md): checks
// that the money database's server runs with wal_level=logical, creates and migrates the reporting
// database (REPORTING_DATABASE_URL; by default the money database's name plus `_reporting` on the
// same server) and the money database (DATABASE_URL), and subscribes the reporting database to the
// money database's publication when it has no subscription yet. It needs no other secret. Exits
// non-zero on failure, so nothing waiting for it starts on an old schema.
import ledger from '@relay/ledger';
import shared from '@relay/shared';

const line = (level, msg, fields = {}) => JSON.stringify({ level, time: new Date().toISOString(), service: 'migrate', ...fields, msg });

try {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set');
  const reportingUrl = process.env.REPORTING_DATABASE_URL || shared.defaultReportingUrl(url);
  const prepared = await ledger.prepareDatabases(url, reportingUrl, { log: (msg, fields) => console.error(line('info', msg, fields)) });
  console.error(line('info', prepared.money.length ? `applied migrations: ${prepared.money.join(', ')}` : 'database schema is up to date'));
  if (prepared.reporting.length) console.error(line('info', `reporting database migrations applied: ${prepared.reporting.join(', ')}`));
  console.error(line('info', prepared.subscription === 'created' ? 'reporting database subscribed to the money database' : 'reporting database already subscribed'));
} catch (err) {
  // The message of a connection error names host and port, never the password of the URL.
  console.error(line('fatal', `migration failed: ${err instanceof Error ? err.message : String(err)}`));
  process.exit(1);
}
