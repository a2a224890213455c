import { spawn, spawnSync } from 'node:child_process';
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
export async function pgbenchFloor(dbUrl: string, seconds: number, clients = 16, names: FloorNames = BENCH_NAMES): Promise<{ tps: number; callsPerSecond: number; calls: number; script: string } | null> {
  if (!hasPgbench()) return null;
  const script = pgbenchScript(names);
  // The wallet's session settings, as its connections run them. Run without blocking this process,
  // so what measures the CPU around it goes on (cpu.ts watchEnding: pgbench's backends end with it).
  const { tps, transactions } = await pgbenchRun(dbUrl, script, { clients, seconds, settings: sessionSettings(MONEY_PATH_POOL) });
  // calls: the money calls the run made (two per script), what its CPU is divided by.
  return { tps, callsPerSecond: 2 * tps, calls: 2 * transactions, script };
}

export function hasPgbench(): boolean {
  return spawnSync('pgbench', ['--version']).status === 0;
}

type PgbenchRun = { clients: number; seconds: number; settings: Record<string, string> };

/** pgbench's transactions per second for `script`, with prepared statements, its connections starting with `settings`. */
export function pgbenchTps(dbUrl: string, script: string, run: PgbenchRun): number {
  const { file, remove } = scriptFile(script);
  try {
    const { command, args, env } = pgbenchCommand(dbUrl, file, run);
    const result = spawnSync(command, args, { encoding: 'utf8', env });
    return pgbenchResult(result.status, result.stdout ?? '', result.stderr ?? '').tps;
  } finally {
    remove();
  }
}

/** pgbenchTps without blocking, with the number of transactions the run completed. */
export async function pgbenchRun(dbUrl: string, script: string, run: PgbenchRun): Promise<{ tps: number; transactions: number }> {
  const { file, remove } = scriptFile(script);
  try {
    const { command, args, env } = pgbenchCommand(dbUrl, file, run);
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const status = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    return pgbenchResult(status, stdout, stderr);
  } finally {
    remove();
  }
}

function scriptFile(script: string): { file: string; remove: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'relay-pgbench-'));
  const file = path.join(dir, 'script.sql');
  writeFileSync(file, script);
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

function pgbenchCommand(dbUrl: string, file: string, run: PgbenchRun): { command: string; args: string[]; env: NodeJS.ProcessEnv } {
  const options = Object.entries(run.settings).map(([name, value]) => `-c ${name}=${value}`);
  return {
    command: 'pgbench',
    args: ['-n', '-M', 'prepared', '-c', String(run.clients), '-j', '2', '-T', String(run.seconds), '-f', file, dbUrl],
    env: { ...process.env, PGOPTIONS: [process.env.PGOPTIONS, ...options].filter(Boolean).join(' ') },
  };
}

function pgbenchResult(status: number | null, stdout: string, stderr: string): { tps: number; transactions: number } {
  const match = /tps = ([\d.]+)/.exec(stdout);
  const processed = /number of transactions actually processed: (\d+)/.exec(stdout);
  if (status !== 0 || !match || !processed) throw new Error(`pgbench failed: ${stderr || stdout}`);
  return { tps: Number(match[1]), transactions: Number(processed[1]) };
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
