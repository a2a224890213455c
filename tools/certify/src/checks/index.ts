import { accessChecks } from './access';
import { advisoryChecks } from './advisory';
import type { Check } from './check';
import { creditChecks } from './credit';
import { debitChecks } from './debit';

export type { Check, CheckStatus, Verdict } from './check';

/** In the order they run: a check's `needs` always come before it; advisory ones last, as they read the run's figures. */
export const CHECKS: readonly Check[] = (() => {
  const byId = new Map([...debitChecks, ...creditChecks, ...accessChecks].map((c) => [c.id, c]));
  const order = [
    'balance-read',
    'signature-refused',
    'timestamp-stale',
    'debit-applies',
    'debit-idempotent',
    'debit-concurrent',
    'credit-applies',
    'credit-idempotent',
    'credit-zero',
    'insufficient-funds',
    'token-expired',
    'unknown-player',
    'round-ended',
    'decimals',
  ];
  return [...order.map((id) => byId.get(id)!), ...advisoryChecks];
})();

export const REQUIRED_CHECK_IDS = CHECKS.filter((c) => c.required).map((c) => c.id);
