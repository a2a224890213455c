import { randomBytes } from 'node:crypto';
import {
  closeDatabase, createDatabase, dropDatabase, numberedPlaceholders, type Database, type Knex, type Statement,
} from '@relay/shared';
import { migrateToLatest } from '@relay/ledger';
import { creditSuccessStatement, debitSuccessStatement, lateSettleStatement, settleStatement, type Settlement } from '../src/data/rounds';
import { claimOrFindStatement, claimStatement, findStatement, markFailedStatement, reviveStatement, takeOverStatement, type SuccessFacts } from '../src/data/transactions';
import { movementRecord } from './movement-records';

/**
 * Every statement of a money call must reach its rows through a unique key: a plan that walks a
 * reporting index (they lead with group_id or provider_id, or with created_at for a time range)
 * reads every record of the game provider or the casino, so a money call would slow down as the
 * tables grow. The planner's choice depends on statistics, so
 * each statement is explained as prepared statements run (custom plans first, then the cached
 * generic plan), both on a fresh deployment (statistics taken while the tables were empty) and
 * after ANALYZE, on tables holding many OPEN rounds and PENDING transactions of one game provider.
 */
const UNIQUE_ACCESS = new Set(['transactions_pkey', 'transaction_keys_pkey', 'transaction_attempts_pkey', 'rounds_pkey', 'round_keys_pkey']);
const MONEY_TABLES = new Set(['transactions', 'transaction_attempts', 'rounds', 'transaction_keys', 'round_keys']);

/** A month's partition (or the default one) and its indexes, named as their parent's (libs/ledger/src/schema/ledger.ts). */
const parent = (name: string) => name.replace(/_p(\d{4}_\d{2}|default)(?=_|$)/, '');

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

/**
 * An index probe is a point lookup when it binds both columns of the primary key (id, created_at)
 * and every index column before them: the planner may pick (created_at DESC, id) for it, or an
 * index led by group_id or provider_id with that column bound too. A probe that binds id and
 * created_at but not the index's leading column walks the whole index (rounds_open: a partition's
 * every open round, and the entries of those since settled) to find one row.
 */
function pointLookup(node: PlanNode, leading: string[]): boolean {
  const cond = node['Index Cond'] ?? '';
  const bound = (column: string) => new RegExp(`\\b${column} = `).test(cond);
  const keyAt = Math.max(leading.indexOf('id'), leading.indexOf('created_at'));
  return bound('id') && bound('created_at') && keyAt >= 0 && leading.slice(0, keyAt).every(bound);
}

/**
 * The key columns of each index of the current schema, in order, by the index's name (a
 * partition's or its parent's); an expression column shows as `(expression)`, which no probe binds.
 */
async function indexColumns(trx: Knex.Transaction): Promise<Map<string, string[]>> {
  const { rows } = await trx.raw<{ rows: { index: string; columns: string[] }[] }>(
    `SELECT c.relname AS index, array_agg(coalesce(a.attname::text, '(expression)') ORDER BY k.n) AS columns
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
       CROSS JOIN LATERAL unnest(i.indkey[0:i.indnkeyatts - 1]) WITH ORDINALITY AS k(attnum, n)
       LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum AND k.attnum > 0
      WHERE c.relnamespace = current_schema()::regnamespace
      GROUP BY c.oid, c.relname`,
  );
  return new Map(rows.map((r) => [r.index, r.columns]));
}

/** Every way the plan reads a money table: "Seq Scan" or the name of the index it uses. */
function tableAccesses(node: PlanNode, columns: Map<string, string[]>, out: string[] = []): string[] {
  const relation = node['Relation Name'] && parent(node['Relation Name']);
  // Partitions pruned at execution (by the key's values) show as never executed.
  const executed = (node['Actual Loops'] ?? 1) > 0;
  if (relation && MONEY_TABLES.has(relation) && node['Node Type'] !== 'ModifyTable' && executed) {
    const name = node['Index Name'];
    const index = name ? parent(name) : undefined;
    out.push(`${relation}: ${name && pointLookup(node, columns.get(name) ?? []) ? `${relation}_pkey` : (index ?? node['Node Type'])}`);
  }
  for (const child of node.Plans ?? []) tableAccesses(child, columns, out);
  return out;
}

async function explain(trx: Knex.Transaction, statement: Statement, mode: 'force_custom_plan' | 'force_generic_plan', columns: Map<string, string[]>): Promise<string[]> {
  await trx.raw(`SET LOCAL plan_cache_mode = ${mode}`);
  await trx.raw(`PREPARE money_plan_check AS ${numberedPlaceholders(statement.sql)}`);
  try {
    return await explainPrepared(trx, 'money_plan_check', statement, columns);
  } finally {
    await trx.raw('DEALLOCATE money_plan_check');
  }
}

/** Runs a prepared statement under EXPLAIN ANALYZE (rolled back) and lists how it read the money tables. */
async function explainPrepared(trx: Knex.Transaction, name: string, statement: Statement, columns: Map<string, string[]>): Promise<string[]> {
  const args = trx.raw(statement.bindings.map(() => '?').join(', '), statement.bindings).toQuery();
  // Executed (and rolled back), so that partitions pruned at execution are told from those read.
  await trx.raw('SAVEPOINT money_plan');
  try {
    const result = await trx.raw(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE ${name}(${args})`);
    const plan = result.rows[0]['QUERY PLAN'][0].Plan as PlanNode;
    return tableAccesses(plan, columns);
  } finally {
    await trx.raw('ROLLBACK TO SAVEPOINT money_plan');
  }
}

const GROUP = 'plan-studio';
const PROVIDER = 'plan-casino';
const PLAYER = 'plan-player';

const movement = (category: 'CASH_OUT' | 'CASH_IN', transactionId: string, roundId: string) =>
  movementRecord({ providerId: PROVIDER, groupId: GROUP, gameId: 7, playerId: PLAYER }, category, transactionId, roundId);

const success: SuccessFacts = {
  claim: { pk: '00000000-0000-4000-8000-000000000001', attempt: 1, createdAt: '2026-11-23 10:00:00.123456+00' },
  balance: '10.00',
  username: PLAYER,
  casinoStatus: 200,
  casinoBody: '{}',
};

/** Settles a round the fill made (executed, the plan shows how it is read). */
const settlement: Settlement = {
  providerId: PROVIDER,
  roundId: 'fill-r-1',
  groupId: GROUP,
  gameId: 7,
  playerId: PLAYER,
  previousTransactionId: 'fill-b-1',
  payoutAmount: '2.00',
  appliedMultiplier: '2',
  settleTransactionId: 'plan-win',
  settleReason: 'NORMAL_WIN',
  outcome: 'WIN',
  settlementData: null,
};

const statements: Record<string, Statement> = {
  'cash-out claim': claimStatement(movement('CASH_OUT', 'plan-bet', 'plan-round'), { amount: 1 }),
  'find by transactionId': findStatement(PROVIDER, 'plan-bet'),
  // What every money call runs first: a new key (the claim), and an existing one (every replay).
  'cash-out claim or find, new key': claimOrFindStatement(movement('CASH_OUT', 'plan-bet-new', 'plan-round'), { amount: 1 }),
  'cash-out claim or find, existing key (every replay)': claimOrFindStatement(movement('CASH_OUT', 'fill-b-7', 'fill-r-7'), { amount: 1 }),
  'cash-out take-over': takeOverStatement('00000000-0000-4000-8000-000000000001', '2026-11-23 10:00:00.123456+00', movement('CASH_OUT', 'plan-bet', 'plan-round'), { amount: 1 }, 30),
  'cash-in claim': claimStatement(movement('CASH_IN', 'plan-win', 'plan-round'), { amount: 2 }),
  'debit outcome opening the round': debitSuccessStatement(success, {
    providerId: PROVIDER,
    roundId: 'plan-round',
    groupId: GROUP,
    gameId: 7,
    playerId: PLAYER,
    sessionId: 'plan-session',
    currency: 'EUR',
    language: 'en',
    betAmount: '1.00',
    betTransactionId: 'plan-bet',
    gameData: { a: 1 },
  }),
  'credit outcome settling the round': settleStatement(success, settlement),
  'credit outcome, second look at the round': lateSettleStatement(success, settlement),
  'credit outcome settling nothing': creditSuccessStatement(success),
  'casino failure recorded': markFailedStatement(success.claim, 'PROVIDER_API_FAILURE', 'casino answered 500', { casinoStatus: 500, casinoBody: '{}' }),
  'take-over of an archived key': reviveStatement(movement('CASH_OUT', 'plan-bet', 'plan-round'), { amount: 1 }, 30),
};

/** Many rounds of one player of one game provider, most OPEN, each with its PENDING bet and its attempt (numbered from `from`). */
async function fill(db: Knex, rows: number, from = 1): Promise<void> {
  await db.raw(
    `INSERT INTO rounds (id, provider_id, round_id, group_id, game_id, player_id, session_id, currency, language, status, bet_amount, bet_transaction_id, opened_at)
     SELECT gen_random_uuid(), ?, 'fill-r-' || n, ?, 7, ?, 'plan-session', 'EUR', 'en', CASE WHEN n % 10 = 0 THEN 'SETTLED' ELSE 'OPEN' END, 1, 'fill-b-' || n, now()
     FROM generate_series(?::int, ?::int) AS n`,
    [PROVIDER, GROUP, PLAYER, from, from + rows - 1],
  );
  await db.raw(
    `INSERT INTO transactions (id, provider_id, transaction_id, category, status, group_id, game_id, player_id, session_id, round_id, amount, currency, language, request_fingerprint)
     SELECT gen_random_uuid(), ?, 'fill-b-' || n, 'CASH_OUT', 'PENDING', ?, 7, ?, 'plan-session', 'fill-r-' || n, 1, 'EUR', 'en', 'x'
     FROM generate_series(?::int, ?::int) AS n`,
    [PROVIDER, GROUP, PLAYER, from, from + rows - 1],
  );
  await db.raw(
    `INSERT INTO transaction_attempts (transaction_pk, attempt, transaction_created_at, request) SELECT id, 1, created_at, '{}' FROM transactions WHERE provider_id = ? ON CONFLICT DO NOTHING`,
    [PROVIDER],
  );
  await db.raw(`INSERT INTO transaction_keys (provider_id, transaction_id, id, created_at) SELECT provider_id, transaction_id, id, created_at FROM transactions WHERE provider_id = ? ON CONFLICT DO NOTHING`, [PROVIDER]);
  await db.raw(`INSERT INTO round_keys (provider_id, round_id, id, created_at) SELECT provider_id, round_id, id, created_at FROM rounds WHERE provider_id = ? ON CONFLICT DO NOTHING`, [PROVIDER]);
}

/** A fresh migrated database per describe block, so each scenario starts from its own statistics. */
function plansDatabase(): () => Database {
  const ref: { url: string; db: Database | null } = { url: '', db: null };
  beforeAll(async () => {
    const base = process.env.TEST_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
    ref.url = `${base}/relay_plans_${Date.now()}_${randomBytes(3).toString('hex')}`;
    await migrateToLatest(ref.url);
    ref.db = createDatabase({ url: ref.url, reportingUrl: ref.url, poolMax: 2, name: 'plans' });
  });
  // DROP DATABASE waits for a checkpoint: many seconds while the database is busy writing.
  afterAll(async () => {
    if (ref.db) await closeDatabase(ref.db);
    await dropDatabase(ref.url);
  }, 120_000);
  return () => ref.db!;
}

/** Explains every money statement both ways; any access but a unique key fails the test. */
async function check(database: Database): Promise<Record<string, string[]>> {
  const found: Record<string, string[]> = {};
  await database.primary.transaction(async (trx) => {
    const columns = await indexColumns(trx);
    for (const [name, statement] of Object.entries(statements)) {
      for (const mode of ['force_custom_plan', 'force_generic_plan'] as const) {
        found[`${name} (${mode})`] = await explain(trx, statement, mode, columns);
      }
    }
  });
  expectUniqueAccess(found);
  return found;
}

/** Fails naming each statement that reads a money table other than by a unique key. */
function expectUniqueAccess(found: Record<string, string[]>): void {
  for (const [name, accesses] of Object.entries(found)) {
    expect({ name, accesses: accesses.filter((a) => !UNIQUE_ACCESS.has(a.split(': ')[1])) }).toEqual({ name, accesses: [] });
  }
}

test('When a probe binds a round\'s id and created_at but not the leading group_id of the open rounds\' index, then it is not counted as a point lookup', () => {
  // As the benchmark saw it: a settlement's generic plan, made while the month's partition was
  // nearly empty, walking that index (60 to 200 pages per settlement, growing with the month).
  const node = { 'Node Type': 'Index Scan', 'Relation Name': 'rounds_p2026_11', 'Index Name': 'rounds_p2026_11_open', 'Index Cond': '((created_at = $9) AND (id = $8))' };
  expect(pointLookup(node, ['group_id', 'created_at', 'id'])).toBe(false);
  expect(pointLookup({ ...node, 'Index Cond': '((group_id = $31) AND (created_at = $9) AND (id = $8))' }, ['group_id', 'created_at', 'id'])).toBe(true);
  expect(pointLookup({ ...node, 'Index Name': 'rounds_p2026_11_created_at_id_idx' }, ['created_at', 'id'])).toBe(true);
});

describe('money statement plans', () => {
  const database = plansDatabase();

  it('When statistics were taken on empty tables and the tables then grew, then every money statement still reads by unique key', async () => {
    await database().primary.raw('ANALYZE rounds, transactions, transaction_attempts, transaction_keys, round_keys');
    await fill(database().primary, 20000);
    const found = await check(database());
    // The settlement reads the round's key by (provider_id, round_id) and the round by primary key.
    expect(found['credit outcome settling the round (force_generic_plan)']).toEqual(
      expect.arrayContaining(['round_keys: round_keys_pkey', 'rounds: rounds_pkey']),
    );
  });

  it('When ANALYZE has then seen those thousands of OPEN rounds and PENDING transactions of the game provider, then every money statement still reads by unique key', async () => {
    await database().primary.raw('ANALYZE rounds, transactions, transaction_attempts, transaction_keys, round_keys');
    await check(database());
  });
});

/**
 * The wallet's connections live long and keep the generic plan they made first. Where autovacuum
 * has not run yet (or is off), that plan is made on small tables never analyzed, and a scan chosen
 * then would be kept as the tables grow: the benchmark once saw PostgreSQL's CPU per money call
 * rise tenfold that way. Plans made in that state must use unique keys too.
 */
describe('money statement plans on small tables never analyzed', () => {
  const database = plansDatabase();

  it('When the tables hold a few records and were never analyzed, then every money statement reads by unique key', async () => {
    await fill(database().primary, 20);
    await check(database());
  });
});

describe.each([0, 40])('money statement plans made while the tables held %i rounds', (early) => {
  const database = plansDatabase();

  it('When a connection planned every money statement on those never analyzed tables and they then grew, then its cached plans still read by unique key', async () => {
    // The wallet keeps its connections for half an hour with force_generic_plan: a connection made
    // at deployment, or while a new month's partitions are still nearly empty, keeps the plan it
    // made then (nothing invalidates it as rows arrive) while the partitions fill.
    const found: Record<string, string[]> = {};
    await database().primary.transaction(async (trx) => {
      await trx.raw('SET LOCAL plan_cache_mode = force_generic_plan');
      if (early > 0) await fill(trx, early, 100_000);
      const columns = await indexColumns(trx);
      const names = Object.keys(statements).map((_, i) => `money_plan_${i}`);
      for (const [i, statement] of Object.values(statements).entries()) {
        await trx.raw(`PREPARE ${names[i]} AS ${numberedPlaceholders(statement.sql)}`);
        await explainPrepared(trx, names[i], statement, columns); // the generic plan, made now
      }
      await fill(trx, 20000);
      for (const [i, [name, statement]] of Object.entries(statements).entries()) found[name] = await explainPrepared(trx, names[i], statement, columns);
      await trx.raw('DEALLOCATE ALL');
    });
    expectUniqueAccess(found);
    expect(found['credit outcome settling the round']).toEqual(expect.arrayContaining(['round_keys: round_keys_pkey', 'rounds: rounds_pkey']));
  });
});
