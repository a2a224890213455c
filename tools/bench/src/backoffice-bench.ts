import { randomUUID } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import { closeRuntime, createLogger, createRuntime, HEARTBEAT_ROW_SQL, HEARTBEAT_SQL, IdentitySigner, listen, loadConfig } from '@relay/shared';
import { createBackofficeApp } from '@relay/backoffice';
import { recordResult } from './harness';
import { analyzeCounts, GAME_PROVIDERS, groupId, readOnly, scaleLabel } from './reporting-data';

/**
 * The back office's money views at 30M transactions (issue 19): p95 of search (with its exact
 * totals), a round's story, a transaction's detail and a month's report grouped by day and casino,
 * and a one-month CSV export of the largest casino (rows per second, peak RSS of this process
 * while it streams). The back-office app runs in-process on an ephemeral port with the production
 * code, called over HTTP with a gateway-signed identity of a platform admin (the gateway resolves
 * the session cookie into that identity; the back office trusts only the signature).
 *
 *   BENCH_BACKOFFICE_URL  the seeded database (default BENCH_REPORTING_LARGE_URL, else relay_bench_30m)
 *   BENCH_SAMPLES         timed requests per scenario (default 30 here, after 3 warm-up requests)
 *
 * Read-only: every connection of the app runs with default_transaction_read_only, so the
 * benchmark cannot write to the seeded database even by mistake (a VACUUM ANALYZE of the counts runs
 * before the app starts).
 */

const URL_ = process.env.BENCH_BACKOFFICE_URL ?? process.env.BENCH_REPORTING_LARGE_URL ?? 'postgres://postgres@127.0.0.1:5432/relay_bench_30m';
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 30);
const WARMUP = 3;
const TARGET_P95_MS = 100;

interface Measured {
  name: string;
  path: string;
  /** Where the totals (or the report's figures) come from. */
  via: string;
  p50: number;
  p95: number;
  max: number;
  rows: number;
  /** Answers 503 (the time limit of a back-office statement). */
  timedOut: number;
}

async function main(): Promise<void> {
  const loadAtStart = os.loadavg()[0];
  const meta = new pg.Client({ connectionString: readOnly(URL_), application_name: 'relay-bench-backoffice-meta' });
  await meta.connect();
  const info = await meta.query(`SELECT seeded_at, finished, rounds, transactions FROM bench_seed_info`).catch(() => ({ rows: [] as Record<string, unknown>[] }));
  const seed = info.rows[0] as { seeded_at: Date; finished: boolean; rounds: string; transactions: string } | undefined;
  if (!seed?.finished) throw new Error(`${new URL(URL_).pathname.slice(1)} is not seeded: run reporting-seed on it first`);
  const label = scaleLabel(Number(seed.transactions));
  const counted = await analyzeCounts(URL_);
  console.log(`counts: ${counted.days} days (analyzed in ${counted.seconds.toFixed(1)} s)`);

  // The seeded database is a reporting database that subscribes to nothing: its heartbeat row, which a
  // money database's heartbeat would keep fresh, is kept so here, or every money view would answer 503
  // (reporting not caught up). The one write of the run, on a connection of its own.
  const heartbeat = new pg.Client({ connectionString: URL_, application_name: 'relay-bench-heartbeat' });
  await heartbeat.connect();
  await heartbeat.query(HEARTBEAT_ROW_SQL);
  const beat = () => heartbeat.query(HEARTBEAT_SQL);
  await beat();
  const beating = setInterval(() => void beat().catch(() => undefined), 200);

  const config = loadConfig({ ...process.env, DATABASE_URL: readOnly(URL_), REPORTING_DATABASE_URL: readOnly(URL_), LOG_LEVEL: 'silent' }, { process: 'backoffice' });
  const rt = await createRuntime('backoffice', config, { logger: createLogger({ service: 'backoffice', level: 'silent', destination: { write: () => undefined } }) });
  const server = await listen(createBackofficeApp(rt), 0);
  const signer = new IdentitySigner(config.INTERNAL_AUTH_SECRET);
  const accountId = randomUUID();
  // Signed per request, as the gateway does: a signed identity is short-lived.
  const identity = () => signer.sign({ kind: 'operator', accountId, role: 'admin', scope: { type: 'platform' }, sessionRef: 'bench' });

  // A day and a month inside the data set (90 days ending at the seed): the month ends 10 days before the seed.
  const end = new Date(seed.seeded_at.getTime() - 10 * 86_400_000);
  const day = end.toISOString().slice(0, 10);
  const monthFrom = new Date(end.getTime() - 29 * 86_400_000).toISOString().slice(0, 10);
  const dayStart = `${day}T00:00:00Z`;
  const dayEnd = `${day}T23:59:59.999Z`;
  // The casinos' shares are equal by design of the seed; the largest is the one with most records that day.
  const largest = (await meta.query(
    `SELECT provider_id FROM transactions WHERE created_at >= $1 AND created_at < $1::timestamptz + interval '1 day' GROUP BY provider_id ORDER BY count(*) DESC, provider_id LIMIT 1`,
    [dayStart],
  )).rows[0]?.provider_id as string;
  // By (group_id, round_id): round_id alone has no index, and this is one lookup, not a scan of 15M rounds.
  const studios = Array.from({ length: GAME_PROVIDERS }, (_, i) => groupId(i + 1));
  const detail = (await meta.query(`SELECT provider_id FROM rounds WHERE group_id = ANY($1) AND round_id = 'r-4242'`, [studios])).rows[0]?.provider_id as string;

  const get = async (urlPath: string) => {
    const started = process.hrtime.bigint();
    const res = await fetch(`${server.url}/backoffice/v1${urlPath}`, { headers: { 'x-relay-identity': await identity() } });
    const body = (await res.json()) as { data: unknown; message?: string };
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    // A 503 of the back office's time limit is a figure of the scenario, not a failure of the
    // benchmark; one of replication lag (the heartbeat above stopped) is.
    if (res.status === 503 && /behind|caught up/.test(body.message ?? '')) throw new Error(`${urlPath} answered 503: ${body.message}`);
    if (res.status === 503) return { ms, rows: 0, timedOut: 1 };
    if (res.status !== 200) throw new Error(`${urlPath} answered ${res.status}: ${JSON.stringify(body)}`);
    return { ms, rows: Array.isArray(body.data) ? body.data.length : 1, timedOut: 0 };
  };
  const q = (params: Record<string, string>) => new URLSearchParams(params).toString();
  // Which path serves each answer's totals: the counts (every filter a counted column) or a live count.
  const totalsFrom = 'counts';
  const scenarios: [string, string, string][] = [
    ['search transactions: one casino, one day', `/money/transactions?${q({ providerId: largest, from: dayStart, to: dayEnd })}`, totalsFrom],
    ['search transactions: one casino, one month', `/money/transactions?${q({ providerId: largest, from: `${monthFrom}T00:00:00Z`, to: dayEnd })}`, totalsFrom],
    ['search transactions: failed cash-ins', `/money/transactions?${q({ category: 'CASH_IN', status: 'FAILED' })}`, totalsFrom],
    ['search transactions: one studio, pending, one day', `/money/transactions?${q({ groupId: groupId(1), status: 'PENDING', from: dayStart, to: dayEnd })}`, totalsFrom],
    ['search transactions: one player, amount range', `/money/transactions?${q({ playerId: 'player-4242', amountMin: '10', amountMax: '50' })}`, 'live (player filter)'],
    ['search rounds: open rounds of one studio', `/money/rounds?${q({ groupId: groupId(1), status: 'OPEN' })}`, totalsFrom],
    ['search rounds: one casino and currency, one day', `/money/rounds?${q({ providerId: largest, currency: 'GBP', from: dayStart, to: dayEnd })}`, totalsFrom],
    // The sorts without an index of their own: the day's rows of the casino are read and sorted.
    ['search transactions: one casino, one day, largest amount first', `/money/transactions?${q({ providerId: largest, from: dayStart, to: dayEnd, sortBy: 'amount' })}`, totalsFrom],
    ['search rounds: one casino, one day, last settled first', `/money/rounds?${q({ providerId: largest, from: dayStart, to: dayEnd, sortBy: 'settledAt' })}`, totalsFrom],
    ['round story', `/money/rounds/${detail}/r-4242/story`, '-'],
    ['transaction detail', `/money/transactions/${detail}/tx-4242-bet`, '-'],
    ['report: one month by day and casino', `/money/reports?${q({ from: monthFrom, to: day, groupBy: 'day,casino', limit: '500' })}`, totalsFrom],
    ['report: one month by studio and currency', `/money/reports?${q({ from: monthFrom, to: day, groupBy: 'studio,currency' })}`, totalsFrom],
    ['report: whole data set by casino, up to today', `/money/reports?${q({ from: new Date(seed.seeded_at.getTime() - 95 * 86_400_000).toISOString().slice(0, 10), to: seed.seeded_at.toISOString().slice(0, 10), groupBy: 'casino' })}`, `${totalsFrom} + today live`],
  ];

  const results: Measured[] = [];
  // BENCH_BACKOFFICE_ONLY=export: the export alone (a what-if run; not recorded in results).
  const exportOnly = process.env.BENCH_BACKOFFICE_ONLY === 'export';
  for (const [name, urlPath, via] of exportOnly ? [] : scenarios) {
    const first = await get(urlPath);
    console.log(`${name}: first answer ${first.ms.toFixed(0)} ms`);
    for (let i = 1; i < WARMUP; i += 1) await get(urlPath);
    const times: number[] = [];
    let rows = 0;
    let timedOut = 0;
    for (let i = 0; i < SAMPLES; i += 1) {
      const r = await get(urlPath);
      times.push(r.ms);
      if (!r.timedOut) rows = r.rows;
      timedOut += r.timedOut;
    }
    times.sort((a, b) => a - b);
    const m = { name, path: urlPath, via, p50: pct(times, 0.5), p95: pct(times, 0.95), max: times[times.length - 1], rows, timedOut };
    results.push(m);
    console.log(`${name.padEnd(52)} p50 ${m.p50.toFixed(1).padStart(7)} ms  p95 ${m.p95.toFixed(1).padStart(7)} ms  rows ${rows}`);
  }

  const exported = await csvExport(`${server.url}/backoffice/v1/money/transactions.csv?${q({ providerId: largest, from: `${monthFrom}T00:00:00Z`, to: dayEnd })}`, { 'x-relay-identity': await identity() });
  console.log(`export: ${exported.rows} rows in ${exported.seconds.toFixed(1)} s (${Math.round(exported.rows / exported.seconds)} rows/s), RSS ${mb(exported.rssBefore)} MB before, peak ${mb(exported.rssPeak)} MB`);

  const lines = [
    `## Back office at ${label} transactions`,
    '',
    `Measured ${new Date().toISOString()} on ${os.cpus().length} CPUs, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}; 1-minute load average`,
    `${loadAtStart.toFixed(1)} at the start, ${os.loadavg()[0].toFixed(1)} at the end. Database ${new URL(URL_).pathname.slice(1)}: ${Number(seed.rounds).toLocaleString('en')} rounds and`,
    `${Number(seed.transactions).toLocaleString('en')} transactions (tools/bench/src/reporting-seed.ts), seeded ${seed.seeded_at.toISOString()}.`,
    '',
    'Method (tools/bench/src/backoffice-bench.ts): the back-office app in-process on an ephemeral port, called over real HTTP',
    `with a gateway-signed identity of a platform admin, sequentially; ${WARMUP} warm-up then ${SAMPLES} timed requests per scenario,`,
    'timed to the parsed body. Searches answer a page of 100 and the exact totals (count and sums per currency) of the filter.',
    `"One day" is ${day}; "one month" ${monthFrom} to ${day}; the largest casino ${largest}. Target (issue 19): p95 under ${TARGET_P95_MS} ms.`,
    `Counts (kept by triggers, libs/ledger/src/schema/counts.ts): ${counted.days} days.`,
    '',
    '| scenario | request | totals from | rows | p50 ms | p95 ms | max ms | p95 < 100 ms |',
    '|---|---|---|---:|---:|---:|---:|---|',
    ...results.map((r) => `| ${r.name} | \`${decodeURIComponent(r.path)}\` | ${r.via} | ${r.rows} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.max.toFixed(1)} | ${r.p95 < TARGET_P95_MS && !r.timedOut ? 'yes' : '**no**'}${r.timedOut ? ` (${r.timedOut} of ${SAMPLES} answered 503, time limit)` : ''} |`),
    '',
    `One-month CSV export of the largest casino (\`/money/transactions.csv\`, ${monthFrom} to ${day}, ${largest}), read to the end by a`,
    'client that counts lines and keeps nothing: the app streams the rows from a database cursor with back-pressure.',
    'RSS of this process (the app and the client) sampled every 50 ms with process.memoryUsage().rss:',
    '',
    '| rows | seconds | rows per second | bytes | RSS before, MB | peak RSS, MB | peak heap used, MB |',
    '|---:|---:|---:|---:|---:|---:|---:|',
    `| ${exported.rows.toLocaleString('en')} | ${exported.seconds.toFixed(1)} | ${Math.round(exported.rows / exported.seconds).toLocaleString('en')} | ${exported.bytes.toLocaleString('en')} | ${mb(exported.rssBefore)} | ${mb(exported.rssPeak)} | ${mb(exported.heapPeak)} |`,
  ];
  // A run on another database or with fewer samples is a look, not a record (harness recordResult).
  if (!exportOnly) recordResult('backoffice', lines.join('\n'), ['BENCH_BACKOFFICE_URL', 'BENCH_SAMPLES']);

  await server.close(1000);
  await closeRuntime(rt);
  clearInterval(beating);
  await heartbeat.end();
  await meta.end();
}

/** Reads the export to its end, counting data lines (after the filter line and the header), while sampling RSS. */
async function csvExport(url: string, headers: Record<string, string>) {
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  let heapPeak = process.memoryUsage().heapUsed;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    rssPeak = Math.max(rssPeak, m.rss);
    heapPeak = Math.max(heapPeak, m.heapUsed);
  }, 50);
  const started = process.hrtime.bigint();
  let newlines = 0;
  let bytes = 0;
  try {
    const res = await fetch(url, { headers });
    if (res.status !== 200 || !res.body) throw new Error(`export answered ${res.status}: ${await res.text()}`);
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (let i = 0; i < chunk.length; i += 1) if (chunk[i] === 10) newlines += 1;
    }
  } finally {
    clearInterval(sampler);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  // Quoted fields never hold a newline here (ids, amounts, codes), so lines count rows.
  return { rows: Math.max(0, newlines - 2), seconds, bytes, rssBefore, rssPeak, heapPeak };
}

const mb = (n: number) => (n / 2 ** 20).toFixed(0);

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
