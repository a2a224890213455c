import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createKnex, resealStoredSecrets, SecretBox, type Knex } from '@relay/shared';
import { migrateToLatest } from '@relay/ledger';
import { uniqueId } from '../platform';

/**
 * Rotating DATA_ENCRYPTION_KEY for real against PostgreSQL: values sealed under the old key are
 * re-sealed under the new one (the library call, then the container's CLI), and afterwards the
 * new key alone opens everything. A database of its own: the run's shared database holds other
 * files' secrets under the development key.
 */

const ROOT = path.resolve(__dirname, '../..');
const OLD = 'old-data-key-of-at-least-32-characters';
const NEW = 'new-data-key-of-at-least-32-characters';
const base = process.env.TEST_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
const dbName = `relay_rotation_${Date.now()}_${randomBytes(3).toString('hex')}`;
const url = `${base}/${dbName}`;
let db: Knex;
const providerId = uniqueId('cas-rotate');
const sessionId = uniqueId('sess-rotate');

beforeAll(async () => {
  await migrateToLatest(url); // creates the database
  db = createKnex(url, 2, 'relay-test-rotation');
  const old = new SecretBox(OLD);
  await db('casinos').insert({ provider_id: providerId, name: 'Rotation', wallet_url: 'https://wallet.example', wallet_secret_enc: old.seal('wallet-secret-1'), launch_key_enc: old.seal('launch-key-1') });
  await db('sessions').insert({
    session_id: sessionId, group_id: 'g', game_id: 1, provider_id: providerId, player_id: 'p', currency: 'EUR', language: 'en',
    wallet_token_enc: old.seal('wallet-token-1'), expires_at: new Date(Date.now() + 3600_000), archive_until: new Date(Date.now() + 3600_000),
  });
});

// DROP DATABASE waits for a checkpoint: many seconds while the database is busy writing.
afterAll(async () => {
  await db?.destroy();
  const admin = createKnex(`${base}/postgres`, 1, 'relay-test-rotation');
  await admin.raw(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  await admin.destroy();
}, 120_000);

async function sealed() {
  const casino = await db('casinos').where({ provider_id: providerId }).first('wallet_secret_enc', 'launch_key_enc');
  const session = await db('sessions').where({ session_id: sessionId }).first('wallet_token_enc');
  return [casino.wallet_secret_enc, casino.launch_key_enc, session.wallet_token_enc] as string[];
}

describe('data encryption key rotation', () => {
  it('When stored secrets are re-sealed under the new key, then the new key alone opens them, and a second run changes nothing', async () => {
    const box = new SecretBox(NEW, [OLD]);
    const reports = await resealStoredSecrets(db, box, { batchSize: 2 });
    expect(reports.map((r) => `${r.table}.${r.column}`)).toEqual(['casinos.wallet_secret_enc', 'casinos.launch_key_enc', 'sessions.wallet_token_enc']);
    for (const r of reports) {
      expect(r.resealed).toBeGreaterThanOrEqual(1);
      expect(r.unreadable).toBe(0);
    }
    const onlyNew = new SecretBox(NEW);
    expect((await sealed()).map((v) => onlyNew.open(v))).toEqual(['wallet-secret-1', 'launch-key-1', 'wallet-token-1']);
    const again = await resealStoredSecrets(db, box);
    expect(again.map((r) => r.resealed)).toEqual([0, 0, 0]);
  });

  it('When the container\'s re-seal command runs for the next rotation, then it re-seals, prints counts only and exits 0', async () => {
    const next = 'next-data-key-of-at-least-32-characters';
    const out = spawnSync(process.execPath, [path.join(ROOT, 'docker/reseal-secrets.mjs')], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: url, DATA_ENCRYPTION_KEY: next, DATA_ENCRYPTION_KEY_DECRYPT_ONLY: NEW },
      timeout: 60_000,
    });
    expect(out.status).toBe(0);
    expect(out.stderr).toContain('casinos.wallet_secret_enc: 1 re-sealed of 1, 0 unreadable');
    expect(out.stderr).toContain('sessions.wallet_token_enc: 1 re-sealed of 1, 0 unreadable');
    for (const secret of ['wallet-secret-1', 'launch-key-1', 'wallet-token-1', sessionId, NEW, next]) expect(out.stderr).not.toContain(secret);
    expect((await sealed()).map((v) => new SecretBox(next).open(v))).toEqual(['wallet-secret-1', 'launch-key-1', 'wallet-token-1']);
  });
});
