import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import { migrateToLatest } from '../../libs/ledger/src/migrate';

/**
 * The restore drill of docs/runbooks/backup-and-restore.md, run for real: a seeded relay database
 * is dumped, restored into a scratch database and compared; a restored copy missing one
 * transaction must fail the drill.
 */

const ROOT = path.resolve(__dirname, '../..');
const SCRIPT = path.join(ROOT, 'ops/backup/restore-drill.sh');
const base = process.env.TEST_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
const suffix = `${Date.now()}_${randomBytes(3).toString('hex')}`;
const sourceName = `relay_drill_src_${suffix}`;
const copyName = `relay_drill_copy_${suffix}`;
let admin: Knex;

function transaction(i: number, status: string, category: string, amount: string) {
  return {
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    provider_id: 'drill-casino',
    transaction_id: `tx-${i}`,
    category,
    status,
    group_id: 'drill-studio',
    game_id: 7001,
    player_id: 'p1',
    session_id: 's1',
    round_id: `r-${Math.ceil(i / 2)}`,
    amount,
    currency: 'EUR',
    language: 'en',
    request_fingerprint: `f${i}`,
  };
}

function drill(args: string[] = []) {
  return spawnSync('bash', [SCRIPT, ...args], {
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: `${base}/${sourceName}` },
    timeout: 60_000,
  });
}

beforeAll(async () => {
  admin = knex({ client: 'pg', connection: `${base}/postgres`, pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE DATABASE "${sourceName}"`);
  await migrateToLatest(`${base}/${sourceName}`);
  const db = knex({ client: 'pg', connection: `${base}/${sourceName}`, pool: { min: 0, max: 1 } });
  try {
    await db('transactions').insert([
      transaction(1, 'SUCCESS', 'CASH_OUT', '10.50'),
      transaction(2, 'SUCCESS', 'CASH_IN', '21.00'),
      transaction(3, 'FAILED', 'CASH_OUT', '5.00'),
      transaction(4, 'PENDING', 'CASH_IN', '0.01'),
    ]);
  } finally {
    await db.destroy();
  }
});

// DROP DATABASE waits for a checkpoint: many seconds while the database is busy writing.
afterAll(async () => {
  for (const name of [sourceName, copyName]) await admin.raw(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.destroy();
}, 120_000);

describe('restore drill', () => {
  it('When a seeded database is dumped and restored, then the drill finds every figure equal and drops its scratch copy', async () => {
    const out = drill();
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
    expect(out.stdout).toMatch(/RESTORE DRILL OK: \d+ figures match; restore took [\d.]+ s/);
    expect(out.stdout).not.toContain('postgres://');
    const left = await admin.raw(`SELECT datname FROM pg_database WHERE datname LIKE 'relay_restore_drill_%'`);
    expect(left.rows.filter((r: { datname: string }) => r.datname.endsWith(`_${out.pid}`))).toEqual([]);
  });

  it('When the restored copy lacks one transaction, then the drill fails and names the difference', async () => {
    await admin.raw(`CREATE DATABASE "${copyName}" TEMPLATE "${sourceName}"`);
    const copy = knex({ client: 'pg', connection: `${base}/${copyName}`, pool: { min: 0, max: 1 } });
    try {
      await copy('transactions').where({ transaction_id: 'tx-2' }).delete();
    } finally {
      await copy.destroy();
    }
    const out = drill(['--restored-url', `${base}/${copyName}`]);
    expect(out.status).toBe(1);
    expect(out.stderr).toContain('RESTORE DRILL FAILED');
    expect(out.stderr).toContain('transactions SUCCESS CASH_IN EUR 1 21.00');
  });
});
