import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MONEY_PATH_POOL, numberedPlaceholders, sessionSettings, type Statement } from '@relay/shared';
import { claimOrFindStatement, debitSuccessStatement, settleStatement, type MovementRecord, type SuccessFacts } from '@relay/wallet';

/**
 * PostgreSQL's own floor for money calls on this machine: pgbench running, per script, the
 * statements the wallet runs for one of the bench's pairs (a cash-out then a cash-in of its round):
 * for each call the claim (claimOrFindStatement) and its outcome with the round's change, each
 * committed on its own as the wallet commits it, with 16 clients and prepared statements. The
 * statements are the wallet's own builders' (moneyPairStatements), with the per-call values turned
 * into pgbench variables; tools/bench/test/pgbench-floor.test.ts holds them against what a real
 * pair through the gateway sends to PostgreSQL. A script is two money calls: callsPerSecond is
 * twice pgbench's tps.
 */
export function pgbenchFloor(dbUrl: string, seconds: number, clients = 16, names: FloorNames = BENCH_NAMES): { tps: number; callsPerSecond: number; script: string } | null {
  if (!hasPgbench()) return null;
  const script = pgbenchScript(names);
  // The wallet's session settings, as its connections run them.
  const tps = pgbenchTps(dbUrl, script, { clients, seconds, settings: sessionSettings(MONEY_PATH_POOL) });
  return { tps, callsPerSecond: 2 * tps, script };
}

export function hasPgbench(): boolean {
  return spawnSync('pgbench', ['--version']).status === 0;
}

/** pgbench's transactions per second for `script`, with prepared statements, its connections starting with `settings`. */
export function pgbenchTps(dbUrl: string, script: string, run: { clients: number; seconds: number; settings: Record<string, string> }): number {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'relay-pgbench-'));
  try {
    const file = path.join(dir, 'script.sql');
    writeFileSync(file, script);
    const options = Object.entries(run.settings).map(([name, value]) => `-c ${name}=${value}`);
    const result = spawnSync('pgbench', ['-n', '-M', 'prepared', '-c', String(run.clients), '-j', '2', '-T', String(run.seconds), '-f', file, dbUrl], {
      encoding: 'utf8',
      env: { ...process.env, PGOPTIONS: [process.env.PGOPTIONS, ...options].filter(Boolean).join(' ') },
    });
    const match = /tps = ([\d.]+)/.exec(result.stdout ?? '');
    if (result.status !== 0 || !match) throw new Error(`pgbench failed: ${result.stderr || result.stdout}`);
    return Number(match[1]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Who the floor's calls are recorded for: the bench's provisioned studio, game and casino. */
export interface FloorNames {
  providerId: string;
  groupId: string;
  gameId: number;
}

export const BENCH_NAMES: FloorNames = { providerId: 'bench-casino', groupId: 'bench-studio', gameId: 4242 };

// Per-call values, replaced by pgbench variables in the script.
const BET = '__BET_TX__';
const WIN = '__WIN_TX__';
const ROUND = '__ROUND__';
const OUT_PK = '__OUT_PK__';
const OUT_CREATED = '__OUT_CREATED__';
const IN_PK = '__IN_PK__';
const IN_CREATED = '__IN_CREATED__';
const PLAYER = 'pgbench-player';
const SESSION = 'pgbench-session';

/**
 * The wallet's statements for one cash-out + cash-in pair, in the order it runs them: the
 * cash-out's claim and outcome (SUCCESS and the round opened), then the cash-in's claim and
 * outcome (SUCCESS and the round settled). Built the way services/wallet/src/domain/cash-out.ts
 * and cash-in.ts build them for the bench's requests (a NORMAL_WIN settling the bet).
 */
export function moneyPairStatements(names: FloorNames = BENCH_NAMES): Statement[] {
  const keys = { providerId: names.providerId, groupId: names.groupId, gameId: names.gameId, playerId: PLAYER, sessionId: SESSION, roundId: ROUND, currency: 'EUR', language: 'en' };
  const common = { sessionId: SESSION, gameId: names.gameId, currency: 'EUR', roundId: ROUND };
  const bet: MovementRecord = {
    ...keys,
    transactionId: BET,
    previousTransactionId: null,
    category: 'CASH_OUT',
    amount: '1.00',
    reason: null,
    appliedMultiplier: null,
    betAmount: '1.00',
    awardId: null,
    campaignId: null,
    isLastFreebet: null,
    isRetry: false,
  };
  const win: MovementRecord = {
    ...bet,
    transactionId: WIN,
    previousTransactionId: BET,
    category: 'CASH_IN',
    amount: '1.50',
    reason: 'NORMAL_WIN',
    appliedMultiplier: '1.5',
    betAmount: '1.00',
  };
  const success = (pk: string, createdAt: string): SuccessFacts => ({ claim: { pk, attempt: 1, createdAt }, balance: '100.00', username: PLAYER, casinoStatus: 200, casinoBody: '{"balance":100}' });
  const round = { providerId: names.providerId, roundId: ROUND, groupId: names.groupId, gameId: names.gameId, playerId: PLAYER };
  return [
    claimOrFindStatement(bet, { ...common, transactionId: BET, amount: 1 }),
    debitSuccessStatement(success(OUT_PK, OUT_CREATED), { ...round, sessionId: SESSION, currency: 'EUR', language: 'en', betAmount: '1.00', betTransactionId: BET, gameData: undefined }),
    claimOrFindStatement(win, { ...common, transactionId: WIN, amount: 1.5, reason: 'NORMAL_WIN', appliedMultiplier: 1.5, previousTransactionId: BET, betAmount: 1, isRetry: false }),
    settleStatement(success(IN_PK, IN_CREATED), {
      ...round,
      previousTransactionId: BET,
      payoutAmount: '1.50',
      appliedMultiplier: '1.5',
      settleTransactionId: WIN,
      settleReason: 'NORMAL_WIN',
      outcome: null,
      settlementData: undefined,
    }),
  ];
}

/**
 * moneyPairStatements as a pgbench script: fresh transactionIds and round per script, each claim's
 * record (\gset) feeding its outcome, each statement autocommitted as the wallet runs it.
 */
export function pgbenchScript(names: FloorNames = BENCH_NAMES): string {
  const [betClaim, betOutcome, winClaim, winOutcome] = moneyPairStatements(names);
  const id = (prefix: string) => `('${prefix}-' || (:client_id)::text || '-' || (:n)::text)`;
  const variables: [string, string][] = [
    [BET, id('pgb')],
    [WIN, id('pgw')],
    [ROUND, id('pgr')],
    [OUT_PK, '(:o_id)::uuid'],
    [OUT_CREATED, '(:o_created_at)'],
    [IN_PK, '(:i_id)::uuid'],
    [IN_CREATED, '(:i_created_at)'],
  ];
  const line = (statement: Statement) => {
    let sql = inline(statement);
    for (const [value, variable] of variables) sql = sql.split(`'${value}'`).join(variable);
    // Every other id the statements generate (the rows' primary keys): a fresh one per call.
    return oneLine(sql.replace(/'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'/g, 'gen_random_uuid()'));
  };
  return [
    '\\set n random(1, 2000000000)',
    `${line(betClaim)} \\gset o_`,
    `${line(betOutcome)};`,
    `${line(winClaim)} \\gset i_`,
    `${line(winOutcome)};`,
    '',
  ].join('\n');
}

/** A statement with its bindings written in as SQL literals. */
function inline({ sql, bindings }: Statement): string {
  const text = numberedPlaceholders(sql);
  return text.replace(/\$(\d+)/g, (_, n: string) => literal(bindings[Number(n) - 1]));
}

function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const text = String(value).replace(/'/g, "''");
  // pgbench reads ":name" as a variable even inside a literal (a request's "isRetry":false): the
  // colon is written as an escape there, which PostgreSQL reads back as the same text.
  return /:[A-Za-z_]/.test(text) ? `E'${text.replace(/\\/g, '\\\\').replace(/:/g, '\\072')}'` : `'${text}'`;
}

/** pgbench reads one command per line (comments would swallow the rest of it). */
function oneLine(sql: string): string {
  return sql
    .split('\n')
    .map((line) => line.replace(/--.*$/, '').trim())
    .filter(Boolean)
    .join(' ');
}
