import type { Knex } from 'knex';
import type { Database } from './db';
import type { ServiceMetrics } from './metrics';

/** The part of tarn's pool (knex's) that tells how busy it is. */
interface PoolStats {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
}

function poolOf(db: Knex): PoolStats | undefined {
  return (db.client as { pool?: PoolStats }).pool;
}

/**
 * Database pool saturation, read at each scrape: relay_db_pool_connections{pool, state} with state
 * `used`, `free`, `pending` (queries waiting for a connection) and `creating`, and
 * relay_db_pool_max{pool}. `pool` is `primary` or `reporting` (the reporting database's handle,
 * once it is a separate pool). A pool waiting while full is the saturation alert (ops/prometheus/rules.yml).
 */
export function registerPoolMetrics(metrics: ServiceMetrics, db: Database, poolMax: number): void {
  const pools: [string, Knex][] = db.reporting === db.primary ? [['primary', db.primary]] : [['primary', db.primary], ['reporting', db.reporting]];
  metrics.gauge('relay_db_pool_connections', 'Database pool connections by pool and state (used, free, pending acquires, creating)', ['pool', 'state'], function () {
    for (const [pool, knex] of pools) {
      const stats = poolOf(knex);
      this.set({ pool, state: 'used' }, stats?.numUsed() ?? 0);
      this.set({ pool, state: 'free' }, stats?.numFree() ?? 0);
      this.set({ pool, state: 'pending' }, stats?.numPendingAcquires() ?? 0);
      this.set({ pool, state: 'creating' }, stats?.numPendingCreates() ?? 0);
    }
  });
  const max = metrics.gauge('relay_db_pool_max', 'Largest number of connections a pool opens (DATABASE_POOL_MAX)', ['pool']);
  for (const [pool] of pools) max.set({ pool }, poolMax);
}
