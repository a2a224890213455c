import type { RequestHandler } from 'express';
import { currentContext, type ErrorCode, type ServiceMetrics } from '@relay/shared';

/** The money routes and the operation each is counted as. */
const OPERATIONS: Record<string, string> = {
  '/api/account': 'balance',
  '/api/balance/cash-out': 'cash-out',
  '/api/balance/cash-in': 'cash-in',
  '/api/balance/cash-in/retry': 'cash-in-retry',
};

/** The casino refused for a reason of the player's: a good answer from the relay's point of view. */
const DECLINED = new Set<string>(['FUND_WITHDRAW_FAILED', 'AUTHENTICATION_TOKEN_EXPIRED'] satisfies ErrorCode[]);
/** The casino failed: 5xx, time-out, refused connection, an answer outside the contract. */
const CASINO_ERROR = new Set<string>(['CASHOUT_FAILED', 'PROVIDER_API_FAILURE', 'INVALID_PROVIDER_RESPONSE', 'INTEGRATION_TIMED_OUT'] satisfies ErrorCode[]);

export type MoneyCallResult = 'ok' | 'client_error' | 'declined' | 'casino_error' | 'relay_error';
const RESULTS: MoneyCallResult[] = ['ok', 'client_error', 'declined', 'casino_error', 'relay_error'];

/** Whose fault an answer is: the split the SLO needs (docs/operating.md). */
export function moneyCallResult(status: number, code: string | undefined): MoneyCallResult {
  if (status < 400) return 'ok';
  if (code && DECLINED.has(code)) return 'declined';
  if (code && CASINO_ERROR.has(code)) return 'casino_error';
  return status >= 500 ? 'relay_error' : 'client_error';
}

/**
 * relay_money_calls_total{provider_id, operation, result}: every money call's answer by whose
 * fault it is, and relay_money_call_duration_seconds{...} its time in the wallet (casino call
 * included). The relay's availability SLO spends only `relay_error`; `casino_error` is the
 * casino's report; the latency SLO reads the duration per casino. provider_id is the session's
 * casino (`unknown` when no session was found). `knowCasinos` starts every series of these casinos
 * at zero, so that increase() sees a casino's first failure (a series born at 1 shows none).
 */
export function moneyCallMetrics(metrics: ServiceMetrics): { count: RequestHandler; knowCasinos: (providerIds: string[]) => void } {
  const calls = metrics.counter('relay_money_calls_total', 'Money calls by casino, operation and result (ok, client_error, declined, casino_error, relay_error)', [
    'provider_id',
    'operation',
    'result',
  ]);
  const duration = metrics.histogram('relay_money_call_duration_seconds', 'Money calls by casino, operation and result: time in the wallet, casino call included', ['provider_id', 'operation', 'result'], [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
  ]);
  const known = new Set<string>();
  const knowCasinos = (providerIds: string[]) => {
    for (const providerId of providerIds) {
      if (known.has(providerId)) continue;
      known.add(providerId);
      for (const operation of Object.values(OPERATIONS)) {
        for (const result of RESULTS) {
          calls.inc({ provider_id: providerId, operation, result }, 0);
          duration.zero({ provider_id: providerId, operation, result });
        }
      }
    }
  };
  // Calls refused before their session named a casino count under "unknown": known from the start.
  knowCasinos(['unknown']);
  const count: RequestHandler = (req, res, next) => {
    const operation = OPERATIONS[req.path];
    if (!operation) return next();
    const ctx = currentContext();
    const started = process.hrtime.bigint();
    let counted = false;
    const count = () => {
      if (counted) return;
      counted = true;
      const code = typeof res.locals.errorCode === 'string' ? res.locals.errorCode : undefined;
      // A game that hung up before the answer (499, as in http_requests_total) is the game's doing.
      const status = res.writableFinished ? res.statusCode : 499;
      const labels = { provider_id: ctx?.providerId ?? 'unknown', operation, result: moneyCallResult(status, code) };
      calls.inc(labels);
      duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    };
    res.on('finish', count);
    res.on('close', count);
    next();
  };
  return { count, knowCasinos };
}
