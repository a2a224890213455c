import { type Knex } from '@relay/shared';
import { boundedRead } from '@relay/ledger';

/** A back-office read that runs longer than this is cancelled on the server and answered 503. */
export const QUERY_TIMEOUT_MS = 15000;

/**
 * Runs an interactive read with a server-side cancel (@relay/ledger's boundedRead). Exports stream
 * without this bound (a month of a large casino takes as long as it takes, in constant memory).
 */
export function bounded<T>(query: Knex.QueryBuilder | Knex.Raw): Promise<T> {
  return boundedRead<T>(query, QUERY_TIMEOUT_MS, 'The query took too long; narrow it with filters or a from/to range');
}
