import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { numberedPlaceholders, type Statement } from '@relay/shared';
import { claimStatement, debitSuccessStatement, type MovementRecord } from '@relay/wallet';

/**
 * PostgreSQL's own floor for a money call on this machine: pgbench running the wallet's two
 * statements of a cash-out (the PENDING claim with its attempt, then the outcome with the round it
 * opens), each committed, with 16 clients and prepared statements, against the benchmark's database.
 * The statements are the wallet's own, with the per-call values turned into pgbench variables.
 */
export function pgbenchFloor(dbUrl: string, seconds: number, clients = 16): { tps: number; script: string } | null {
  if (spawnSync('pgbench', ['--version']).status !== 0) return null;
  const script = pgbenchScript();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'relay-pgbench-'));
  try {
    const file = path.join(dir, 'money-call.sql');
    writeFileSync(file, script);
    const run = spawnSync('pgbench', ['-n', '-M', 'prepared', '-c', String(clients), '-j', '2', '-T', String(seconds), '-f', file, dbUrl], { encoding: 'utf8' });
    const match = /tps = ([\d.]+)/.exec(run.stdout ?? '');
    if (run.status !== 0 || !match) throw new Error(`pgbench failed: ${run.stderr || run.stdout}`);
    return { tps: Number(match[1]), script };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const TX = '__TX__';
const ROUND = '__ROUND__';
const PK = '00000000-0000-4000-8000-00000000feed';
const CREATED = '__CREATED__';

/** The wallet's cash-out statements as a pgbench script: a fresh transactionId and round per call. */
export function pgbenchScript(): string {
  const record: MovementRecord = {
    providerId: 'bench-casino',
    transactionId: TX,
    previousTransactionId: null,
    category: 'CASH_OUT',
    groupId: 'bench-studio',
    gameId: 4242,
    playerId: 'pgbench-player',
    sessionId: 'pgbench-session',
    roundId: ROUND,
    amount: '1.00',
    currency: 'EUR',
    language: 'en',
    reason: null,
    appliedMultiplier: null,
    betAmount: '1.00',
    awardId: null,
    campaignId: null,
    isLastFreebet: null,
    isRetry: false,
  };
  const claim = claimStatement(record, { amount: 1 });
  const outcome = debitSuccessStatement(
    { claim: { pk: PK, attempt: 1, createdAt: CREATED }, balance: '100.00', username: 'pgbench-player', casinoStatus: 200, casinoBody: '{"balance":100}' },
    { providerId: 'bench-casino', roundId: ROUND, groupId: 'bench-studio', gameId: 4242, playerId: 'pgbench-player', sessionId: 'pgbench-session', currency: 'EUR', language: 'en', betAmount: '1.00', betTransactionId: TX, gameData: null },
  );
  const id = (prefix: string) => `('${prefix}-' || (:client_id)::text || '-' || (:n)::text)`;
  const vars = (sql: string) =>
    sql
      .split(`'${TX}'`)
      .join(id('pgb'))
      .split(`'${ROUND}'`)
      .join(id('pgr'))
      .split(`'${PK}'`)
      .join('(:pk)::uuid')
      .split(`'${CREATED}'`)
      .join('(:createdAt)')
      // Every other id the statements generate (the rows' primary keys): a fresh one per call.
      .replace(/'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'/g, 'gen_random_uuid()');
  // Each its own autocommitted statement, as the wallet runs them.
  return ['\\set n random(1, 2000000000)', `${oneLine(vars(inline(claim)))} \\gset`, `${oneLine(vars(inline(outcome)))};`, ''].join('\n');
}

/** A statement with its bindings written in as SQL literals. */
function inline({ sql, bindings }: Statement): string {
  const text = numberedPlaceholders(sql);
  return text.replace(/\$(\d+)/g, (_, n: string) => literal(bindings[Number(n) - 1]));
}

function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return `'${String(value).replace(/'/g, "''")}'`;
}

/** pgbench reads one command per line (comments would swallow the rest of it). */
function oneLine(sql: string): string {
  return sql
    .split('\n')
    .map((line) => line.replace(/--.*$/, '').trim())
    .filter(Boolean)
    .join(' ');
}
