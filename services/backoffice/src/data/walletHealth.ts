import type { Knex, OperatorScope } from '@relay/shared';
import { scopeFilter } from '../domain/access';
import { bounded } from './bounded';

/**
 * How each casino's wallet looks from the relay's side, from the relay's own records: every
 * debit and credit attempt (transaction_attempts) started in the last hour and the last day, by
 * casino and operation. Latency is finished_at - started_at of the attempts the casino answered
 * or that timed out; an attempt is
 * - ok: the casino accepted (outcome SUCCESS),
 * - declined: the casino refused with a 4xx (insufficient funds, limits: a business answer),
 * - casino_error: the casino failed (5xx, time-out, no connection, an answer the relay cannot use),
 * the same split as the casino_calls_total metric. Error rate = casino_error / finished attempts.
 * Attempts still running are not counted. Balance calls are not recorded in the ledger, so they
 * are not here (the casino_calls_total metric counts them).
 *
 * Read through a BRIN index on started_at (transaction_attempts_started, libs/ledger/src/schema/ledger.ts) and bounded to the partitions
 * of transactions created in the last 32 days: a takeover of an older transaction started in the
 * window is left out (rare; its casino call is still in the metric).
 */
export interface WalletHealthRow {
  provider_id: string;
  operation: 'debit' | 'credit';
  window: 'hour' | 'day';
  finished: string;
  ok: string;
  declined: string;
  casino_errors: string;
  p50_ms: number | null;
  p99_ms: number | null;
}

export async function walletHealth(read: Knex, scope: OperatorScope, providerId?: string): Promise<WalletHealthRow[]> {
  const q = read('transaction_attempts as a')
    .join('transactions as t', function joinRecord() {
      this.on('t.id', '=', 'a.transaction_pk').andOn('t.created_at', '=', 'a.transaction_created_at');
    })
    .joinRaw(`CROSS JOIN (VALUES ('hour', interval '1 hour'), ('day', interval '1 day')) AS w(name, span)`)
    .whereRaw(`a.started_at >= now() - interval '1 day'`)
    .whereRaw('a.started_at >= now() - w.span')
    .whereRaw(`a.transaction_created_at >= now() - interval '32 days'`)
    .whereRaw(`t.created_at >= now() - interval '32 days'`)
    .whereNotNull('a.finished_at')
    .select(
      't.provider_id',
      read.raw(`CASE t.category WHEN 'CASH_OUT' THEN 'debit' ELSE 'credit' END AS operation`),
      read.raw('w.name AS window'),
      read.raw('count(*) AS finished'),
      read.raw(`count(*) FILTER (WHERE a.outcome = 'SUCCESS') AS ok`),
      read.raw(`count(*) FILTER (WHERE a.outcome = 'FAILED' AND a.casino_status BETWEEN 400 AND 499) AS declined`),
      read.raw(`count(*) FILTER (WHERE a.outcome = 'FAILED' AND (a.casino_status IS NULL OR a.casino_status NOT BETWEEN 400 AND 499)) AS casino_errors`),
      read.raw(`percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM a.finished_at - a.started_at) * 1000)::float8 AS p50_ms`),
      read.raw(`percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM a.finished_at - a.started_at) * 1000)::float8 AS p99_ms`),
    )
    .groupByRaw('1, 2, 3')
    .orderByRaw('1, 2, 3 DESC');
  if (providerId) q.where('t.provider_id', providerId);
  return bounded<WalletHealthRow[]>(scopeFilter(q, scope, { providerId: 't.provider_id', groupId: 't.group_id' }));
}
