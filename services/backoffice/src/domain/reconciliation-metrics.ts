import type { Logger, Runtime } from '@relay/shared';
import { countItems, ITEM_KINDS } from '../data/reconciliation';
import type { BackofficeDeps } from './deps';
import { thresholdsOf } from './reconciliation';

export const AGE_BUCKETS = ['lt_1h', '1h_24h', 'gt_24h'] as const;

/**
 * relay_reconciliation_items{kind, age}: the open queue, counted at each scrape from the same
 * derivation the list uses (platform-wide, on the read handle), so an alert sees exactly what
 * support sees. Every kind and bucket is always present, 0 included, so "absent" never hides a
 * problem. A failed count keeps the previous values and logs why.
 */
export function registerReconciliationGauge(rt: Runtime, deps: BackofficeDeps, logger: Logger): void {
  rt.metrics.gauge('relay_reconciliation_items', 'Reconciliation items needing a person (not yet resolved), by kind and age', ['kind', 'age'], async function collect() {
    try {
      const counts = await countItems(deps.reporting, { type: 'platform' }, thresholdsOf(deps), {});
      const decidedResolved = await countItems(deps.reporting, { type: 'platform' }, thresholdsOf(deps), { state: 'RESOLVED' });
      for (const kind of ITEM_KINDS) {
        for (const age of AGE_BUCKETS) {
          const all = counts.find((c) => c.kind === kind && c.age === age)?.count ?? 0;
          const resolved = decidedResolved.find((c) => c.kind === kind && c.age === age)?.count ?? 0;
          this.set({ kind, age }, all - resolved);
        }
      }
    } catch (err) {
      logger.warn({ err }, 'could not count reconciliation items for the metric');
    }
  });
}
