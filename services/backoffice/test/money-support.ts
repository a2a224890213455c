import { startCasinoSandbox, type CasinoSandbox } from '@relay/casino-sandbox';
import type { Knex, OperatorScope } from '@relay/shared';
import { http, startPlatform, type TestPlatform } from '../../../test/platform';
import { startGameWorld, type GameWorld, type Player } from '../../../test/game';
import { asOperator, bo, signedInOperator, type HttpResult } from '../../../test/backoffice';
import { betBody, winBody } from '../../wallet/test/money-support';

/**
 * The ledger's partitions (transactions, their attempts, rounds) of the months `backs` months before
 * this one (0: this month), for rows written straight into the ledger; their months as YYYY-MM.
 * Made on the money database and on the reporting database (each partitions its own copy, as their
 * jobs do), so rows written on the first are filed in the same months on the second.
 */
export async function ledgerMonthsBack(db: { primary: Knex; reporting: Knex }, backs: readonly number[]): Promise<string[]> {
  const now = new Date();
  const months: string[] = [];
  for (const back of backs) {
    const m = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1));
    months.push(m.toISOString().slice(0, 7));
    for (const knex of [db.reporting, db.primary]) {
      for (const t of ['transactions', 'transaction_attempts', 'rounds']) await knex.raw('SELECT ledger_create_partition(?, ?::date)', [t, m.toISOString().slice(0, 10)]);
    }
  }
  return months;
}

/**
 * Two tenants (A and B: each a studio with a game and a casino on one sandbox casino) played
 * through the gateway, and operators of every scope, for the money-view tests.
 */
export interface MoneyWorld {
  p: TestPlatform;
  sandbox: CasinoSandbox;
  a: GameWorld;
  b: GameWorld;
  /** GET/POST as an operator of this role and scope; path relative to /backoffice/v1. */
  as(role: 'admin' | 'support' | 'finance', scope: OperatorScope): Promise<(method: string, path: string, body?: unknown) => Promise<HttpResult>>;
  stop(): Promise<void>;
}

export async function startMoneyWorld(env: Record<string, string> = {}): Promise<MoneyWorld> {
  const p = await startPlatform({ services: ['launcher', 'wallet', 'notifier', 'admin', 'backoffice'], env });
  const sandbox = await startCasinoSandbox();
  const a = await startGameWorld(p, { sandbox });
  const b = await startGameWorld(p, { sandbox });
  return {
    p,
    sandbox,
    a,
    b,
    as: async (role, scope) => {
      const op = await signedInOperator(p, role, scope);
      return (method, path, body) => asOperator(op, method, bo(p, path), { body });
    },
    stop: async () => {
      await p.stop();
      await sandbox.close();
    },
  };
}

/** A bet and its settling win (or a loss with 0), through the game routes; returns the ids. */
export async function playRound(g: GameWorld, pl: Player, bet: number, win: number, multiplier = win / bet) {
  const b = betBody(g, pl, { amount: bet });
  const debit = await g.call('POST', '/api/balance/cash-out', b);
  if (debit.status !== 200) throw new Error(`cash-out answered ${debit.status}: ${debit.text}`);
  const w = winBody(g, pl, b, win > 0 ? { amount: win, appliedMultiplier: multiplier } : { amount: 0, reason: 'BET_LOST', appliedMultiplier: 0 });
  const credit = await g.call('POST', '/api/balance/cash-in', w);
  if (credit.status !== 200) throw new Error(`cash-in answered ${credit.status}: ${credit.text}`);
  return { roundId: b.roundId, betId: b.transactionId, winId: w.transactionId };
}

export const ADMIN = async (w: MoneyWorld, path: string) => http('GET', bo(w.p, path), { token: w.p.adminToken });
