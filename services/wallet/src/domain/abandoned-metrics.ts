import type { Knex, Logger, ServiceMetrics } from '@relay/shared';
import { abandonedTransactions, type AbandonedTransactions } from '../data/transactions';

/** One query serves every gauge of a scrape (prom-client collects them in parallel). */
const SCRAPE_REUSE_MS = 1000;

/**
 * The reconciliation alarm: money attempts nobody finished. A PENDING transaction older than the
 * in-flight window means the relay died or lost its database between claiming the movement and
 * recording the casino's answer, and the game has not repeated the request since. The casino may
 * have moved the money; until the game repeats the same request (or an operator reconciles with
 * the casino) no round or balance on our side shows it. Alert on any value above zero.
 *
 * relay_transactions_abandoned{group_id,provider_id,category}: how many.
 * relay_transactions_abandoned_oldest_seconds{...}: since when (the oldest claim's age).
 */
export function registerAbandonedMetrics(metrics: ServiceMetrics, db: Knex, logger: Logger, inFlightSeconds: number): void {
  let last: { at: number; rows: Promise<AbandonedTransactions[] | null> } | null = null;
  const load = (): Promise<AbandonedTransactions[] | null> => {
    const now = Date.now();
    if (!last || now - last.at > SCRAPE_REUSE_MS) {
      const rows = abandonedTransactions(db, inFlightSeconds).catch((err: unknown) => {
        // No figure rather than a stale one; the scrape itself still answers.
        logger.warn({ err: { message: (err as Error).message } }, 'abandoned transactions could not be counted');
        return null;
      });
      last = { at: now, rows };
    }
    return last.rows;
  };
  /** A gauge per (game provider, casino, category) of the last reading, set afresh at each scrape. */
  const gauge = (name: string, help: string, value: (r: AbandonedTransactions) => number) =>
    metrics.gauge(name, help, ['group_id', 'provider_id', 'category'], async function () {
      const rows = await load();
      this.reset();
      for (const r of rows ?? []) this.set({ group_id: r.groupId, provider_id: r.providerId, category: r.category }, value(r));
    });
  gauge('relay_transactions_abandoned', 'PENDING transactions older than the in-flight window: the casino may have moved money no record shows', (r) => r.count);
  gauge('relay_transactions_abandoned_oldest_seconds', 'Age of the oldest abandoned PENDING transaction', (r) => r.oldestSeconds);
}
