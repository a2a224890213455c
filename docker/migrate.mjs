/* global process, console */
// One-shot migrations (compose service `migrate`, Kubernetes Job `relay-migrate`): the same
// migrations `npm start` runs, against DATABASE_URL (the database is created if missing). It needs
// no other secret. Exits non-zero on failure, so nothing waiting for it starts on an old schema.
import shared from '@relay/shared';

const line = (level, msg) => JSON.stringify({ level, time: new Date().toISOString(), service: 'migrate', msg });

try {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set');
  const applied = await shared.migrateToLatest(url);
  console.error(line('info', applied.length ? `applied migrations: ${applied.join(', ')}` : 'database schema is up to date'));
} catch (err) {
  // The message of a connection error names host and port, never the password of the URL.
  console.error(line('fatal', `migration failed: ${err instanceof Error ? err.message : String(err)}`));
  process.exit(1);
}
