import type { Knex } from '@relay/shared';

/**
 * Rows fetched per round trip of an export's server-side cursor (pg-query-stream through knex),
 * and rows its readable side holds. Small on purpose: a batch stays alive until the CSV stream has
 * drained it, and a batch of 1,000 rows (with 1,000 more buffered) outlived young-generation
 * collections, so each batch was promoted and the old generation grew in a sawtooth: the heap of
 * a 200,000-row export peaked 80 MB above its baseline (RSS 106 -> 224 MB for 500,000 rows in
 * the benchmark) although nothing stayed alive. At 100 rows the peak is about 20 MB above it, and
 * the extra round trips cost nothing measurable next to the CSV encoding (test/serial/backoffice-export).
 */
export const EXPORT_BATCH_ROWS = 100;

/**
 * Every row of a query, read through a server-side cursor as the consumer asks for them: with the
 * pipeline of routes/csv, a client that stops reading stops the cursor (res.write returning false
 * pauses the CSV stream, which stops pulling rows, which stops the next FETCH).
 */
export function streamed(query: Knex.QueryBuilder | Knex.Raw): AsyncIterable<Record<string, unknown>> {
  return query.stream({ batchSize: EXPORT_BATCH_ROWS, highWaterMark: EXPORT_BATCH_ROWS }) as unknown as AsyncIterable<Record<string, unknown>>;
}
