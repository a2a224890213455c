import type { Knex, OperatorScope } from '@relay/shared';
import { scopeFilter } from '../domain/access';
import { ROUND_COLUMNS, scopedLedger, TRANSACTION_COLUMNS } from './ledger';

/**
 * The records behind a round's story and a transaction's detail, each read through the caller's
 * scope: a record of another tenant is simply not found.
 */

/** The session without its sealed wallet token. */
const SESSION_COLUMNS = ['session_id', 'group_id', 'game_id', 'provider_id', 'player_id', 'currency', 'language', 'username', 'created_at', 'expires_at'];

export interface AttemptRow {
  transaction_pk: string;
  attempt: number;
  request: unknown;
  outcome: string | null;
  casino_status: number | null;
  casino_body: string | null;
  error_code: string | null;
  error_message: string | null;
  started_at: Date;
  finished_at: Date | null;
  duration_ms: number | null;
}

/**
 * A record by its casino's key, through the key records (libs/ledger/src/schema/keys.ts): the key's id and
 * created_at, as InitPlan parameters, probe the record's primary key in its one partition. A
 * record whose month was archived is not found.
 */
function byKey(read: Knex, table: 'rounds' | 'transactions', keyColumn: 'round_id' | 'transaction_id', providerId: string, key: string) {
  const keys = table === 'rounds' ? 'round_keys' : 'transaction_keys';
  const pick = (column: string) => read(keys).select(column).where({ provider_id: providerId, [keyColumn]: key });
  return (q: Knex.QueryBuilder) => q.where(`${table}.id`, pick('id')).where(`${table}.created_at`, pick('created_at'));
}

export async function findRound(read: Knex, scope: OperatorScope, providerId: string, roundId: string) {
  return byKey(read, 'rounds', 'round_id', providerId, roundId)(scopedLedger(read, 'rounds', scope, { providerId, roundId })).first(
    ROUND_COLUMNS.map((c) => `rounds.${c}`),
  );
}

export async function findTransaction(read: Knex, scope: OperatorScope, providerId: string, transactionId: string) {
  return byKey(read, 'transactions', 'transaction_id', providerId, transactionId)(scopedLedger(read, 'transactions', scope, { providerId, transactionId })).first(
    TRANSACTION_COLUMNS.map((c) => `transactions.${c}`),
  );
}

/**
 * A round's transactions, oldest first: the bet, then its credits and their retries. Read through
 * (group_id, round_id) for every game provider (a game moved between providers keeps its older
 * records under the first one): one index probe per provider and partition, never a scan.
 */
export async function roundTransactions(read: Knex, scope: OperatorScope, providerId: string, roundId: string): Promise<Record<string, unknown>[]> {
  const groups = (await read('game_providers').select('group_id')).map((g: { group_id: string }) => g.group_id);
  return scopedLedger(read, 'transactions', scope, { providerId, roundId })
    .whereRaw('transactions.group_id = ANY(?::text[])', [groups])
    .select(TRANSACTION_COLUMNS.map((c) => `transactions.${c}`))
    .orderBy([{ column: 'transactions.created_at', order: 'asc' }, { column: 'transactions.id', order: 'asc' }])
    .limit(1000);
}

/** Every attempt of these transactions, in order (the primary key (transaction_pk, attempt) serves it). */
export async function attemptsOf(read: Knex, transactionPks: string[]): Promise<AttemptRow[]> {
  if (transactionPks.length === 0) return [];
  return read('transaction_attempts')
    .whereIn('transaction_pk', transactionPks)
    .select('*', read.raw('round(extract(epoch from (finished_at - started_at)) * 1000)::int as duration_ms'))
    .orderBy([{ column: 'transaction_pk' }, { column: 'attempt' }]);
}

export async function findSession(read: Knex, scope: OperatorScope, sessionId: string) {
  return scopeFilter(read('sessions'), scope, { providerId: 'sessions.provider_id', groupId: 'sessions.group_id' })
    .where('sessions.session_id', sessionId)
    .first(SESSION_COLUMNS.map((c) => `sessions.${c}`));
}

/** Each casino's round-ended result for this round (the notifier records one row per try), oldest first. */
export async function roundEndedNotifications(read: Knex, scope: OperatorScope, providerId: string, roundId: string) {
  return scopeFilter(read('round_ended_notifications'), scope, { providerId: 'round_ended_notifications.provider_id', groupId: 'round_ended_notifications.group_id' })
    .where({ 'round_ended_notifications.provider_id': providerId, 'round_ended_notifications.round_id': roundId })
    .orderBy('round_ended_notifications.id')
    .select('provider_id', 'outcome', 'error_message', 'request_id', 'notified_at');
}
