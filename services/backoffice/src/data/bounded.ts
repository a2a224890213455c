import { AppError, type Knex } from '@relay/shared';

/** A back-office read that runs longer than this is cancelled on the server and answered 503. */
export const QUERY_TIMEOUT_MS = 15000;

/**
 * Runs an interactive read with a server-side cancel, so one broad search over a large ledger
 * cannot hold a replica connection for minutes; the caller is told to narrow it. Exports stream
 * without this bound (a month of a large casino takes as long as it takes, in constant memory).
 */
export async function bounded<T>(query: Knex.QueryBuilder | Knex.Raw): Promise<T> {
  try {
    return (await query.timeout(QUERY_TIMEOUT_MS, { cancel: true })) as T;
  } catch (err) {
    if ((err as { name?: string })?.name === 'KnexTimeoutError') {
      throw new AppError('SERVICE_UNAVAILABLE', 'The query took too long; narrow it with filters or a from/to range');
    }
    throw err;
  }
}
