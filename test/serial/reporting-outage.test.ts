import pg from 'pg';
import { dropDatabase, dropSubscription, subscriptionName } from '@relay/shared';
import { prepareDatabases } from '@relay/ledger';
import { startGameWorld, type GameWorld } from '../game';
import { http, replicated, startPlatform, uniqueId, type TestPlatform } from '../platform';

/**
 * In the serial phase of `npm test`: the run's reporting database stops following the money
 * database, then is dropped and built again, which every other suite would see.
 *
 * The reporting database is the money database's logical replica (docs/reporting-database.md).
 * Its outage must cost the money path nothing, reporting must say it is behind rather than serve
 * stale money, the money database must not keep WAL without bound for it, and a reporting database
 * built again from nothing must hold every record.
 */
const MONEY = process.env.DATABASE_URL!;
const REPORTING = process.env.REPORTING_DATABASE_URL!;
const SLOT = subscriptionName(REPORTING);
let p: TestPlatform;
let g: GameWorld;

async function onReporting<T>(sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: REPORTING });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

/** A round played through the gateway: a cash-out and the cash-in that settles it; every answer must be 200. */
async function playRound(sessionId: string): Promise<{ roundId: string; statuses: number[] }> {
  const roundId = uniqueId('round-outage');
  const bet = { sessionId, gameId: g.gameId, currency: 'EUR', roundId, transactionId: uniqueId('bet'), amount: 2 };
  const out = await g.call('POST', '/api/balance/cash-out', bet);
  const win = await g.call('POST', '/api/balance/cash-in', {
    sessionId, gameId: g.gameId, currency: 'EUR', roundId, transactionId: uniqueId('win'), amount: 3, reason: 'NORMAL_WIN',
    appliedMultiplier: 1.5, previousTransactionId: bet.transactionId, betAmount: 2,
  });
  return { roundId, statuses: [out.status, win.status] };
}

/** GET without the test helper's replication barrier: what a caller sees while reporting is behind. */
async function rawGet(path: string): Promise<Response> {
  return fetch(`${p.baseUrl}${path}`, { headers: { authorization: `Bearer ${g.providerToken}` } });
}

beforeAll(async () => {
  p = await startPlatform({ env: { REPORTING_MAX_LAG_SECONDS: '2' } });
  g = await startGameWorld(p);
}, 60_000);
afterAll(async () => {
  await onReporting(`ALTER SUBSCRIPTION ${SLOT} ENABLE`).catch(() => undefined);
  await p?.stop();
  await g?.sandbox.close();
});

describe('When the reporting database stops following the money database', () => {
  it('then money calls are unaffected, reporting answers 503 with Retry-After past the lag bound, the slot keeps bounded WAL, and once it follows again reporting has every record', async () => {
    const player = await g.launchPlayer({ balance: 1000 });
    await replicated();
    await onReporting(`ALTER SUBSCRIPTION ${SLOT} DISABLE`);

    const played: string[] = [];
    for (let i = 0; i < 10; i++) {
      const round = await playRound(player.sessionId);
      expect(round.statuses).toEqual([200, 200]);
      played.push(round.roundId);
    }

    // The heartbeat ages past REPORTING_MAX_LAG_SECONDS (2 s here): reporting says so.
    let stale: Response | undefined;
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      const res = await rawGet('/api/v1/rounds');
      if (res.status === 503) {
        stale = res;
        break;
      }
      expect(res.status).toBe(200);
    }
    expect(stale?.status).toBe(503);
    expect(((await stale!.json()) as { error: string }).error).toBe('SERVICE_UNAVAILABLE');
    expect(Number(stale!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(stale!.headers.get('x-reporting-lag-seconds'))).toBeGreaterThan(2);

    // Money calls go on while reporting is behind.
    const during = await playRound(player.sessionId);
    expect(during.statuses).toEqual([200, 200]);
    played.push(during.roundId);

    // The money database's side: nobody streams from the slot, and the WAL it keeps stays within max_slot_wal_keep_size.
    const money = new pg.Client({ connectionString: MONEY });
    await money.connect();
    try {
      const { rows: [slot] } = await money.query<{ active: boolean; wal_status: string; retained: string; keep: string }>(
        `SELECT active, wal_status, pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint::text AS retained,
                (SELECT setting FROM pg_settings WHERE name = 'max_slot_wal_keep_size') AS keep
           FROM pg_replication_slots WHERE slot_name = $1`,
        [SLOT],
      );
      expect(slot.active).toBe(false);
      expect(Number(slot.keep)).toBeGreaterThan(0); // MB; -1 would let the slot keep WAL without bound
      expect(Number(slot.retained)).toBeLessThan(Number(slot.keep) * 2 ** 20);
      expect(['reserved', 'extended']).toContain(slot.wal_status);
    } finally {
      await money.end();
    }
    const adminMetrics = await (await fetch(`${p.services.admin!.url}/metrics`)).text();
    expect(adminMetrics).toMatch(new RegExp(`relay_replication_slot_active\\{slot="${SLOT}",wal_status="(reserved|extended)"[^}]*\\} 0`));
    expect(adminMetrics).toMatch(new RegExp(`relay_replication_slot_retained_wal_bytes\\{slot="${SLOT}"[^}]*\\} \\d+`));
    const reportingMetrics = await (await fetch(`${p.services.reporting!.url}/metrics`)).text();
    expect(Number(/^relay_replication_lag_seconds(?:\{[^}]*\})? (\S+)$/m.exec(reportingMetrics)?.[1])).toBeGreaterThan(2);

    await onReporting(`ALTER SUBSCRIPTION ${SLOT} ENABLE`);
    await replicated();
    const listed = await http('GET', `${p.baseUrl}/api/v1/rounds?playerId=${player.playerId}&limit=100`, { token: g.providerToken });
    expect({ status: listed.status, body: listed.status === 200 ? undefined : listed.body, lag: listed.headers.get('x-reporting-lag-seconds') }).toEqual({ status: 200, body: undefined, lag: expect.anything() });
    expect(listed.body.data.map((r: { roundId: string }) => r.roundId).sort()).toEqual([...played].sort());
    expect(listed.body.data.every((r: { status: string }) => r.status === 'SETTLED')).toBe(true);
  }, 90_000);
});

describe('When the reporting database is dropped and created again', () => {
  it('then npm start\'s set-up creates, migrates and subscribes it, and it copies every record from scratch', async () => {
    const player = await g.launchPlayer({ balance: 1000 });
    for (let i = 0; i < 3; i++) expect((await playRound(player.sessionId)).statuses).toEqual([200, 200]);

    await dropSubscription(MONEY, REPORTING);
    await dropDatabase(REPORTING);
    // Money calls while there is no reporting database at all.
    expect((await playRound(player.sessionId)).statuses).toEqual([200, 200]);

    const prepared = await prepareDatabases(MONEY, REPORTING);
    expect(prepared.subscription).toBe('created');
    expect(prepared.reporting.length).toBeGreaterThan(0);
    // The first copy of every table of this run's ledger, with reporting's indexes: allow it minutes.
    await replicated(180_000);

    const count = async (url: string) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { rows } = await client.query<{ t: string; r: string; a: string; s: string }>(
          `SELECT (SELECT count(*) FROM transactions)::text AS t, (SELECT count(*) FROM rounds)::text AS r,
                  (SELECT count(*) FROM transaction_attempts)::text AS a, (SELECT coalesce(sum(amount), 0)::text FROM transactions) AS s`,
        );
        return rows[0];
      } finally {
        await client.end();
      }
    };
    const onMoney = await count(MONEY);
    expect(Number(onMoney.t)).toBeGreaterThan(0);
    expect(await count(REPORTING)).toEqual(onMoney);
    // The copy ran with the count triggers off; the counts were made from the copied rows after it.
    const [counts] = await onReporting<{ counted: string; rounds: string }>(
      `SELECT (SELECT coalesce(sum(n), 0) FROM ledger_counts_transactions)::text AS counted,
              (SELECT coalesce(sum(n), 0) FROM ledger_counts_rounds)::text AS rounds`,
    );
    expect(counts).toEqual({ counted: onMoney.t, rounds: onMoney.r });

    // The platform's reporting pools reconnect to the new database.
    const listed = await http('GET', `${p.baseUrl}/api/v1/rounds?playerId=${player.playerId}`, { token: g.providerToken });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(4);
  }, 300_000);
});
