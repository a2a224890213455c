import type { Fault } from '@relay/casino-sandbox';
import type { GameWorld } from '../../game';
import type { Tally } from './reliability';

/** The money routes of the spec and the casino operation each one performs. */
export type MoneyRoute = '/api/balance/cash-out' | '/api/balance/cash-in' | '/api/balance/cash-in/retry';
export const MONEY_ROUTES: MoneyRoute[] = ['/api/balance/cash-out', '/api/balance/cash-in', '/api/balance/cash-in/retry'];
export type CasinoOperation = 'balance' | 'debit' | 'credit';

export const operationOf = (route: MoneyRoute): 'debit' | 'credit' => (route === '/api/balance/cash-out' ? 'debit' : 'credit');

export interface Expected {
  status: number;
  /** The relay error code; absent for a 200. */
  code?: string;
}

/** docs/api/casino.json, "How casino answers map to relay errors", for the faults the sandbox can script. */
export function expectedAnswer(operation: CasinoOperation, fault: Fault | null, timeoutMs: number): Expected {
  if (!fault) return { status: 200 };
  switch (fault.kind) {
    case 'insufficientFunds':
      return operation === 'debit' ? { status: 400, code: 'FUND_WITHDRAW_FAILED' } : { status: 502, code: 'PROVIDER_API_FAILURE' };
    case 'tokenExpired':
      return { status: 403, code: 'AUTHENTICATION_TOKEN_EXPIRED' };
    case 'error':
      if (fault.status === 401) return { status: 403, code: 'AUTHENTICATION_TOKEN_EXPIRED' };
      if (fault.status >= 500) return operation === 'debit' ? { status: 500, code: 'CASHOUT_FAILED' } : { status: 502, code: 'PROVIDER_API_FAILURE' };
      return operation === 'debit' ? { status: 400, code: 'FUND_WITHDRAW_FAILED' } : { status: 502, code: 'PROVIDER_API_FAILURE' };
    case 'malformed':
      return { status: 502, code: 'INVALID_PROVIDER_RESPONSE' };
    case 'balanceAsString':
    case 'username':
      return { status: 200 };
    case 'delay':
      return fault.ms < timeoutMs ? { status: 200 } : { status: 408, code: 'INTEGRATION_TIMED_OUT' };
    case 'reset':
      return { status: 502, code: 'PROVIDER_API_FAILURE' };
  }
}

/** A short label of a fault for names and counts: `delay 550ms applyFirst`. */
export function faultLabel(fault: Fault | null): string {
  if (!fault) return 'none';
  const { kind, ...rest } = fault;
  const parts = Object.entries(rest).map(([k, v]) => (k === 'ms' ? `${String(v)}ms` : v === true ? k : `${k}=${String(v)}`));
  return [kind, ...parts].join(' ');
}

/**
 * What a game does with an answer it cannot trust: repeat the identical request (same
 * transactionId) until the relay gives a definite 200, waiting out 409 TRANSACTION_IN_FLIGHT.
 */
export async function replayUntilOk(g: GameWorld, route: MoneyRoute, body: object, tally?: Tally, maxAttempts = 40): Promise<{ status: number; body: any }> {
  let last: { status: number; body: any } = { status: 0, body: undefined };
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    last = await g.call('POST', route, body);
    tally?.request();
    if (last.status === 200) return last;
    if (last.status !== 409) return last;
    await sleep(250);
  }
  return last;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls until `check` is true, or fails after `ms`. */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 5000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await sleep(25);
  }
  throw new Error(`timed out waiting for ${what}`);
}
