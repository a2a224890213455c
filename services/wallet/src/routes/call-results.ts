import type { RequestHandler } from 'express';
import { currentContext, type ErrorCode, type ServiceMetrics } from '@relay/shared';

/** The wallet's routes as operations: the money-call SLO is counted per casino and operation. */
const OPERATIONS: Record<string, string> = {
  '/api/v1/sessions/:sessionId': 'validate-session',
  '/api/account': 'balance',
  '/api/balance/cash-out': 'cash-out',
  '/api/balance/cash-in': 'cash-in',
  '/api/balance/cash-in/retry': 'cash-in-retry',
};

/**
 * Whose failure an answer is: the game's request (client_error), the player's casino refusing
 * (declined), the casino failing (casino_error: reported to the casino, outside the relay's error
 * budget), or the relay itself (relay_error: the relay's budget).
 */
export type CallResult = 'ok' | 'client_error' | 'declined' | 'casino_error' | 'relay_error';
const UNKNOWN = 'unknown';
const RESULTS: CallResult[] = ['ok', 'client_error', 'declined', 'casino_error', 'relay_error'];

const DECLINED = new Set<ErrorCode>(['FUND_WITHDRAW_FAILED', 'AUTHENTICATION_TOKEN_EXPIRED']);
const CASINO = new Set<ErrorCode>(['CASHOUT_FAILED', 'PROVIDER_API_FAILURE', 'INVALID_PROVIDER_RESPONSE', 'INTEGRATION_TIMED_OUT']);

export function callResult(status: number, code: ErrorCode | undefined): CallResult {
  if (status < 400) return 'ok';
  if (code && DECLINED.has(code)) return 'declined';
  if (code && CASINO.has(code)) return 'casino_error';
  return status >= 500 ? 'relay_error' : 'client_error';
}

/** relay_money_calls_total{provider_id, operation, result}, every series known started at zero. */
export function callResults(metrics: ServiceMetrics): { count: RequestHandler; knowCasinos: (providerIds: string[]) => void } {
  const calls = metrics.counter('relay_money_calls_total', 'Wallet calls of games by casino, operation and whose failure it was', ['provider_id', 'operation', 'result']);
  const known = new Set<string>();
  const knowCasinos = (providerIds: string[]) => {
    for (const providerId of providerIds) {
      if (known.has(providerId)) continue;
      known.add(providerId);
      for (const operation of Object.values(OPERATIONS)) for (const result of RESULTS) calls.inc({ provider_id: providerId, operation, result }, 0);
    }
  };
  // Calls refused before their session named a casino are counted under "unknown": known from the start.
  knowCasinos([UNKNOWN]);
  const count: RequestHandler = (req, res, next) => {
    const ctx = currentContext();
    res.once('finish', () => {
      const operation = req.route ? OPERATIONS[String(req.route.path)] : undefined;
      if (!operation) return;
      // A call refused before its session named the casino counts under "unknown".
      calls.inc({ provider_id: ctx?.providerId ?? UNKNOWN, operation, result: callResult(res.statusCode, res.locals.errorCode as ErrorCode | undefined) });
    });
    next();
  };
  return { count, knowCasinos };
}
