import { Writable } from 'node:stream';
import knex from 'knex';
import { createLogger, ServiceMetrics } from '@relay/shared';
import { registerAbandonedMetrics } from './abandoned-metrics';

describe('abandoned-transaction gauges', () => {
  test('When the database cannot be reached, then /metrics still answers, without the gauges\' values, and the failure is logged', async () => {
    // A real connection attempt to a port nothing listens on.
    const db = knex({ client: 'pg', connection: 'postgres://postgres@127.0.0.1:1/none', pool: { min: 0, max: 1 }, acquireConnectionTimeout: 2000,
      // knex's own console line for the refused connection; the relay's logger is what is checked.
      log: { warn: () => undefined, error: () => undefined, debug: () => undefined, deprecate: () => undefined } });
    const lines: string[] = [];
    const logger = createLogger({ service: 'wallet', level: 'warn', destination: new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }) });
    const metrics = new ServiceMetrics('wallet');
    registerAbandonedMetrics(metrics, db, logger, 60);
    try {
      const text = await metrics.registry.metrics();
      expect(text).toContain('# TYPE relay_transactions_abandoned gauge');
      expect(text).toContain('# TYPE relay_transactions_abandoned_oldest_seconds gauge');
      expect(text.split('\n').filter((line) => line.startsWith('relay_transactions_abandoned'))).toEqual([]);
      expect(lines.filter((line) => line.includes('abandoned transactions could not be counted'))).toHaveLength(1); // one query per scrape
    } finally {
      await db.destroy();
    }
  });
});
