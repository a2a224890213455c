import pg from 'pg';
import { startGameWorld, type GameWorld } from '../game';
import { startPlatform, uniqueId, type TestPlatform } from '../platform';

/**
 * A replay of a SUCCESS is what every game sends after an outage, all at once: it must cost reads
 * only. No row lock (the tuple's xmax stays), no new row version, no attempt row, no WAL and so no
 * wait for a commit to disk. The WAL written while the replays run is read record by record
 * (pg_walinspect): none may touch a relation of this test's database, whatever other databases
 * on the server write meanwhile. Still in the serial phase of `npm test`: its platform is the only
 * writer of this run's database while it measures.
 */
let p: TestPlatform;
let world: GameWorld;
// A session of its own holds a temporary physical replication slot, so the server keeps every
// window's WAL until it is read, whatever checkpoints other work causes; the slot goes with it.
let walKeeper: pg.Client;

beforeAll(async () => {
  p = await startPlatform({ services: ['launcher', 'wallet', 'admin'] });
  world = await startGameWorld(p);
  await p.db.primary.raw('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
  walKeeper = new pg.Client({ connectionString: p.config.DATABASE_URL, application_name: 'relay-test-wal-keeper' });
  await walKeeper.connect();
  await walKeeper.query('SELECT pg_create_physical_replication_slot($1, true, true)', [`relay_test_replay_${process.pid}_${Date.now()}`]);
}, 60000);
afterAll(async () => {
  await walKeeper?.end();
  await p?.stop();
  await world?.sandbox.close();
});

interface WalRecord {
  lsn: string;
  xid: string;
  rmgr: string;
  type: string;
  description: string;
  blocks: string;
}

/**
 * The WAL records that touch a relation of this database (a block reference carries it as
 * tablespace/database/relfilenode; a lock logged for standbys names it in its description) among
 * everything the server wrote while `work` ran, but for the replicated heartbeat's row, which the
 * platform rewrites every second whatever the money calls do (docs/reporting-database.md), and
 * PostgreSQL's own upkeep of its system catalogs.
 */
async function walOfThisDatabase(work: () => Promise<void>): Promise<WalRecord[]> {
  const db = p.db.primary;
  const lsn = async (fn: string) => (await db.raw(`SELECT ${fn}::text AS lsn`)).rows[0].lsn as string;
  const from = await lsn('pg_current_wal_insert_lsn()');
  await work();
  const to = await lsn('pg_current_wal_insert_lsn()');
  // pg_walinspect reads only flushed WAL: the WAL writer flushes within wal_writer_delay.
  for (let i = 0; (await db.raw('SELECT pg_current_wal_flush_lsn() >= ?::pg_lsn AS flushed', [to])).rows[0].flushed !== true; i++) {
    if (i > 100) throw new Error(`WAL up to ${to} was not flushed within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if ((await db.raw('SELECT ?::pg_lsn <= ?::pg_lsn AS none', [to, from])).rows[0].none) return [];
  const result = await db.raw(
    `SELECT start_lsn::text AS lsn, xid::text AS xid, resource_manager AS rmgr, record_type AS type, description, coalesce(block_ref, '') AS blocks
       FROM pg_get_wal_records_info(?::pg_lsn, ?::pg_lsn), (SELECT oid::text AS oid FROM pg_database WHERE datname = current_database()) d,
            (SELECT pg_relation_filenode('replication_heartbeat')::text AS heartbeat) h
      WHERE (block_ref ~ ('rel [0-9]+/' || d.oid || '/') OR description ~ ('\\mdb ' || d.oid || '\\M'))
        AND coalesce(block_ref, '') !~ ('rel [0-9]+/' || d.oid || '/' || h.heartbeat || '( |$)')
        -- PostgreSQL's own upkeep of its system catalogs, outside any transaction: autovacuum's
        -- statistics of the heartbeat's table (rewritten every second), an in-place update of
        -- pg_class, and the pruning of dead catalog rows by whichever backend reads their page
        -- first. No statement of a money call writes a catalog.
        AND NOT (xid = 0 AND record_type IN ('INPLACE', 'PRUNE', 'VISIBLE')
                 AND coalesce(substring(block_ref from 'rel [0-9]+/[0-9]+/([0-9]+)')::bigint, 0) < 16384)`,
    [from, to],
  );
  return result.rows as WalRecord[];
}

describe('replays', () => {
  it('When a successful cash-out is repeated 200 times, then each answer is the stored one and PostgreSQL writes nothing: no lock, no row version, no attempt, no WAL record for this database', async () => {
    const player = await world.launchPlayer({ balance: 100 });
    const body = { sessionId: player.sessionId, gameId: world.gameId, currency: 'EUR', roundId: uniqueId('r'), transactionId: uniqueId('t'), amount: 12.34 };
    let first!: Awaited<ReturnType<GameWorld['call']>>;
    // The first call writes: the reading of the WAL sees this database's records (its claim's insert).
    const firstWrote = await walOfThisDatabase(async () => {
      first = await world.call('POST', '/api/balance/cash-out', body);
    });
    expect(firstWrote).toContainEqual(expect.objectContaining({ rmgr: 'Heap', type: expect.stringMatching(/^INSERT/) }));
    expect(first.status).toBe(200);
    expect(first.body.balance).toBe(87.66);
    world.sandbox.setBalance(world.providerId, player.playerId, 5); // the casino moves on; the replay must not ask it

    const tuple = () =>
      p.db.primary('transactions').where({ provider_id: world.providerId, transaction_id: body.transactionId }).first(p.db.primary.raw('xmax::text AS xmax'), p.db.primary.raw('ctid::text AS ctid'), 'attempt');
    // The idempotency key the replay is found by (libs/ledger/src/schema/keys.ts): no lock on it either.
    const keyTuple = () =>
      p.db.primary('transaction_keys').where({ provider_id: world.providerId, transaction_id: body.transactionId }).first(p.db.primary.raw('xmax::text AS xmax'), p.db.primary.raw('ctid::text AS ctid'));
    const attempts = async () => Number((await p.db.primary('transaction_attempts as a').join('transactions as t', 't.id', 'a.transaction_pk').where({ 't.transaction_id': body.transactionId }).count({ n: '*' }))[0].n);
    const before = await tuple();
    const keyBefore = await keyTuple();
    const attemptsBefore = await attempts();
    const casinoCalls = world.sandbox.countCalls({ providerId: world.providerId });

    // What PostgreSQL may still write for this database by itself (autovacuum's vacuum and analyze
    // of the rows just written, the pruning of the PENDING version) is done now, so that anything
    // written for it while the replays run is theirs.
    await p.db.primary.raw('VACUUM (ANALYZE)');
    const written = await walOfThisDatabase(async () => {
      for (let i = 0; i < 200; i += 20) {
        const answers = await Promise.all(Array.from({ length: 20 }, () => world.call('POST', '/api/balance/cash-out', body)));
        for (const a of answers) expect({ status: a.status, body: a.body }).toEqual({ status: 200, body: first.body });
      }
    });
    expect({ records: written.length, first: written.slice(0, 5) }).toEqual({ records: 0, first: [] });
    expect(await tuple()).toEqual(before);
    expect(before.xmax).toBe('0');
    expect(await keyTuple()).toEqual(keyBefore);
    expect(keyBefore.xmax).toBe('0');
    expect(await attempts()).toBe(attemptsBefore);
    expect(world.sandbox.countCalls({ providerId: world.providerId })).toBe(casinoCalls);
  }, 60000);

  it('When 20 identical new cash-outs arrive at once, then the casino is debited once and every 200 carries the same answer', async () => {
    const player = await world.launchPlayer({ balance: 100 });
    const body = { sessionId: player.sessionId, gameId: world.gameId, currency: 'EUR', roundId: uniqueId('r'), transactionId: uniqueId('t'), amount: 1 };
    const answers = await Promise.all(Array.from({ length: 20 }, () => world.call('POST', '/api/balance/cash-out', body)));
    for (const a of answers) expect([200, 409]).toContain(a.status);
    const ok = answers.filter((a) => a.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const a of ok) expect(a.body).toEqual({ id: player.playerId, balance: 99, username: expect.any(String) });
    expect(world.sandbox.journal({ providerId: world.providerId, transactionId: body.transactionId }).length).toBe(1);
  });
});
