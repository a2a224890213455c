import { walletHealth as readWalletHealth } from '../data/walletHealth';
import { authorize, type Caller } from './access';
import type { BackofficeDeps } from './deps';

export interface WalletHealth {
  providerId: string;
  operation: 'debit' | 'credit';
  window: 'hour' | 'day';
  attempts: number;
  ok: number;
  declined: number;
  casinoErrors: number;
  /** casinoErrors / attempts, 0..1, rounded to 4 decimals. */
  errorRate: number;
  p50Ms: number | null;
  p99Ms: number | null;
}

const ms = (v: number | null) => (v === null ? null : Math.round(v * 10) / 10);

/** Each casino's wallet latency and error rate by operation, last hour and last day, in the caller's scope. */
export async function walletHealth(deps: BackofficeDeps, caller: Caller, providerId?: string): Promise<WalletHealth[]> {
  authorize(caller, 'money:read');
  const rows = await readWalletHealth(deps.reporting, caller.scope, providerId);
  return rows.map((r) => {
    const attempts = Number(r.finished);
    const casinoErrors = Number(r.casino_errors);
    return {
      providerId: r.provider_id,
      operation: r.operation,
      window: r.window,
      attempts,
      ok: Number(r.ok),
      declined: Number(r.declined),
      casinoErrors,
      errorRate: attempts === 0 ? 0 : Math.round((casinoErrors / attempts) * 10000) / 10000,
      p50Ms: ms(r.p50_ms),
      p99Ms: ms(r.p99_ms),
    };
  });
}
