import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PUBLICATION, type Knex } from '@relay/shared';
import { MONEY_LEDGER_INDEXES } from '../../libs/ledger/src/schema/ledger';
import { replicated, startPlatform, uniqueId, type TestPlatform } from '../platform';

/**
 * The layout of the two databases (docs/reporting-database.md), read from the run's own money
 * database and its subscribed reporting database: the money database's lean ledger, what its
 * publication may carry, and rows that reach the reporting database however the money database
 * moves them.
 */
let p: TestPlatform;
beforeAll(async () => {
  p = await startPlatform({ services: ['admin'] });
}, 60_000);
afterAll(async () => {
  await p?.stop();
});

/** The secondary indexes of a partitioned ledger table (its own, not its partitions'). */
async function secondaryIndexes(db: Knex, table: string): Promise<string[]> {
  const { rows } = await db.raw<{ rows: { name: string }[] }>(
    `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = ?::regclass AND NOT i.indisprimary ORDER BY 1`,
    [table],
  );
  return rows.map((r) => r.name);
}

describe('When the money database is migrated', () => {
  it('then its ledger tables carry only the secondary indexes docs/ledger.md lists with their statements, at most 6; the reporting database carries the rest', async () => {
    const money = [...(await secondaryIndexes(p.db.primary, 'rounds')), ...(await secondaryIndexes(p.db.primary, 'transactions'))].sort();
    expect(money).toEqual(Object.keys(MONEY_LEDGER_INDEXES).sort());
    expect(money.length).toBeLessThanOrEqual(6);
    const doc = readFileSync(path.join(__dirname, '../../docs/ledger.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Indexes of the money database'));
    for (const name of money) expect(section).toMatch(new RegExp(`\`${name}\``));

    const reporting = [...(await secondaryIndexes(p.db.reporting, 'rounds')), ...(await secondaryIndexes(p.db.reporting, 'transactions'))];
    expect(reporting.length).toBeGreaterThan(20);
    for (const name of money) expect(reporting).toContain(name);
  });
});

describe('When the publication is read', () => {
  const SECRET_COLUMN = /(_enc|secret|token_hash|password|totp|code_hash|launch_key|_pem)$/;
  const NEVER_PUBLISHED = ['operator_accounts', 'operator_recovery_codes', 'casino_api_tokens', 'provider_tokens', 'launch_token_uses', 'audit_log'];

  it('then no published column holds a secret, no table of credentials is published, and every published table has a primary key', async () => {
    const { rows } = await p.db.primary.raw<{ rows: { tablename: string; attnames: string[] }[] }>(
      `SELECT tablename, attnames::text[] AS attnames FROM pg_publication_tables WHERE pubname = ? ORDER BY tablename`,
      [PUBLICATION],
    );
    expect(rows.map((r) => r.tablename)).toEqual(expect.arrayContaining(['rounds', 'transactions', 'transaction_attempts', 'casinos', 'sessions', 'replication_heartbeat']));
    for (const { tablename, attnames } of rows) {
      expect({ tablename, secrets: attnames.filter((a) => SECRET_COLUMN.test(a)) }).toEqual({ tablename, secrets: [] });
      expect(NEVER_PUBLISHED).not.toContain(tablename);
      const pk = await p.db.primary.raw(`SELECT 1 FROM pg_index WHERE indrelid = ?::regclass AND indisprimary`, [tablename]);
      expect({ tablename, primaryKey: pk.rows.length }).toEqual({ tablename, primaryKey: 1 });
    }
    // The reporting database does not even have the columns the publication leaves out.
    const { rows: columns } = await p.db.reporting.raw<{ rows: { table_name: string; column_name: string }[] }>(
      `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ANY(?)`,
      [rows.map((r) => r.tablename)],
    );
    expect(columns.filter((c) => SECRET_COLUMN.test(c.column_name))).toEqual([]);
  });
});

describe('When rows wait in the default partition and their month is created', () => {
  it('then every row moved out of the default partition arrives in the reporting database once, as it is on the money database', async () => {
    const groupId = uniqueId('grp-move');
    // A month no other test writes, with no partition yet: the rows wait in the default partition.
    const month = `20${40 + Math.floor(Math.random() * 50)}-0${1 + Math.floor(Math.random() * 9)}`;
    const ids = Array.from({ length: 40 }, () => randomUUID());
    await p.db.primary('transactions').insert(ids.map((id, i) => ({
      id, provider_id: 'cas-move', transaction_id: `${groupId}-${i}`, category: 'CASH_OUT', status: 'SUCCESS', group_id: groupId, game_id: 1,
      player_id: `pl-${i % 3}`, session_id: 's', round_id: `r-${i}`, amount: `${i}.25`, currency: 'EUR', language: 'en', request_fingerprint: 'f',
      created_at: `${month}-${String(1 + (i % 28)).padStart(2, '0')}T12:00:00Z`,
    })));
    await p.db.primary('rounds').insert(ids.slice(0, 10).map((id, i) => ({
      id, provider_id: 'cas-move', round_id: `${groupId}-${i}`, group_id: groupId, game_id: 1, player_id: 'pl', session_id: 's', currency: 'EUR',
      language: 'en', status: 'OPEN', bet_amount: '1.00', bet_transaction_id: `${groupId}-${i}`, opened_at: `${month}-02T00:00:00Z`, created_at: `${month}-02T00:00:00Z`,
    })));
    const inDefault = await p.db.primary('transactions_pdefault').where({ group_id: groupId }).count({ n: '*' });
    expect(Number(inDefault[0].n)).toBe(40);

    for (const table of ['transactions', 'transaction_attempts', 'rounds']) await p.db.primary.raw('SELECT ledger_create_partition(?, ?::date)', [table, `${month}-01`]);
    expect(Number((await p.db.primary('transactions_pdefault').where({ group_id: groupId }).count({ n: '*' }))[0].n)).toBe(0);

    await replicated();
    const read = async (db: Knex, table: string) =>
      (await db(table).where({ group_id: groupId }).select('id', 'created_at', table === 'rounds' ? 'bet_amount as amount' : 'amount').orderBy('id')).map((r) => ({ ...r, created_at: new Date(r.created_at).toISOString() }));
    for (const table of ['transactions', 'rounds']) {
      const money = await read(p.db.primary, table);
      expect(money.length).toBe(table === 'rounds' ? 10 : 40);
      expect(await read(p.db.reporting, table)).toEqual(money);
    }
  });
});

describe('When a takeover repeats a failed transaction on the money database', () => {
  it('then the reporting database moves it between its counts itself, from the replicated rows (the count triggers, fired by the apply worker)', async () => {
    const groupId = uniqueId('grp-takeover');
    const id = randomUUID();
    const day = '2026-03-14';
    const counts = async () => (await p.db.reporting('ledger_counts_transactions').where({ group_id: groupId, day })
      .select('game_id', 'status', p.db.reporting.raw('n::int AS n'), p.db.reporting.raw('amount::text AS amount')).orderBy(['game_id', 'status'])) as unknown[];
    const players = async () => (await p.db.reporting('ledger_counts_players').where({ group_id: groupId, day }).select('player_id', p.db.reporting.raw('n::int AS n')).orderBy('player_id')) as unknown[];
    await p.db.primary('transactions').insert({
      id, provider_id: 'cas-takeover', transaction_id: groupId, category: 'CASH_OUT', status: 'FAILED', group_id: groupId, game_id: 1,
      player_id: 'pl', session_id: 's', round_id: 'r', amount: '5.00', currency: 'EUR', language: 'en', request_fingerprint: 'f',
      created_at: `${day}T23:59:59Z`,
    });
    await replicated();
    expect(await counts()).toEqual([{ game_id: 1, status: 'FAILED', n: 1, amount: '5.00' }]);
    // What the wallet's takeover statement does: the record goes back to PENDING with its attempt
    // raised, rewritten (another game, another amount); then the repeat succeeds.
    await p.db.primary('transactions').where({ id }).update({ status: 'PENDING', attempt: 2, game_id: 2, amount: '7.50', claimed_at: p.db.primary.fn.now() });
    await p.db.primary('transactions').where({ id }).update({ status: 'SUCCESS', completed_at: p.db.primary.fn.now() });
    await replicated();
    // Every key the row passed through stays, at zero.
    expect(await counts()).toEqual([
      { game_id: 1, status: 'FAILED', n: 0, amount: '0.00' },
      { game_id: 2, status: 'PENDING', n: 0, amount: '0.00' },
      { game_id: 2, status: 'SUCCESS', n: 1, amount: '7.50' },
    ]);
    expect(await players()).toEqual([{ player_id: 'pl', n: 1 }]);
    // A replicated delete leaves the counts as if the row had never been.
    await p.db.primary('transactions').where({ id }).delete();
    await replicated();
    expect((await counts()).map((c) => (c as { n: number }).n)).toEqual([0, 0, 0]);
    expect(await players()).toEqual([{ player_id: 'pl', n: 0 }]);
  });

  it('then a month the reporting database partitions later carries the same triggers, firing for the apply worker too', async () => {
    const month = `20${40 + Math.floor(Math.random() * 50)}-1${Math.floor(Math.random() * 3)}`;
    await p.db.reporting.raw('SELECT ledger_create_partition(?, ?::date)', ['transactions', `${month}-01`]);
    const { rows } = await p.db.reporting.raw<{ rows: { tgenabled: string }[] }>(
      `SELECT t.tgname, t.tgenabled FROM pg_trigger t WHERE t.tgrelid = ?::regclass AND t.tgname LIKE 'transactions_%counted' ORDER BY 1`,
      [`transactions_p${month.replace('-', '_')}`],
    );
    expect(rows).toEqual([{ tgname: 'transactions_counted', tgenabled: 'A' }, { tgname: 'transactions_recounted', tgenabled: 'A' }]);
  });
});
