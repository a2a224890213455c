/* global process, console */
// Re-seals every stored secret (casino wallet secrets and launch keys, players' wallet tokens)
// under DATA_ENCRYPTION_KEY, opening them with it or with DATA_ENCRYPTION_KEY_DECRYPT_ONLY: the
// second step of rotating the data encryption key (docs/runbooks/rotating-secrets.md).
//   DATABASE_URL=... DATA_ENCRYPTION_KEY=<new> DATA_ENCRYPTION_KEY_DECRYPT_ONLY=<old> node docker/reseal-secrets.mjs
// Prints counts only; exits 1 when a value could not be opened with either key.
import shared from '@relay/shared';

const line = (level, msg, extra = {}) => JSON.stringify({ level, time: new Date().toISOString(), service: 'reseal-secrets', msg, ...extra });

const { DATABASE_URL: url, DATA_ENCRYPTION_KEY: key, DATA_ENCRYPTION_KEY_DECRYPT_ONLY: old } = process.env;
if (!url || !key) {
  console.error(line('fatal', 'DATABASE_URL and DATA_ENCRYPTION_KEY are required'));
  process.exit(2);
}
const db = shared.createKnex(url, 2, 'relay-reseal-secrets');
try {
  const reports = await shared.resealStoredSecrets(db, new shared.SecretBox(key, old ? [old] : []));
  for (const r of reports) {
    console.error(line(r.unreadable ? 'error' : 'info', `${r.table}.${r.column}: ${r.resealed} re-sealed of ${r.scanned}, ${r.unreadable} unreadable`));
  }
  process.exitCode = reports.some((r) => r.unreadable > 0) ? 1 : 0;
} catch (err) {
  console.error(line('fatal', `re-sealing failed: ${err instanceof Error ? err.message : String(err)}`));
  process.exitCode = 1;
} finally {
  await db.destroy();
}
