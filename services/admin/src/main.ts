import { serviceMain } from '@relay/shared';
import { startAdmin } from './index';
import { startLedgerMaintenance } from './ledger';
import { scheduleRollups } from './ledger/rollups';

serviceMain('admin', async (rt, port) => {
  const started = await startAdmin(rt, port);
  // The ledger's maintenance jobs (docs/ledger.md), stopped at shutdown before the pools close:
  // partitions and retention on the money database, partitions and the daily rollups behind exact
  // totals on the reporting database, and the replicated heartbeat.
  const rollups = scheduleRollups(rt.db.reporting, rt.logger, rt.config.LEDGER_ROLLUP_INTERVAL_MS);
  const stops = [startLedgerMaintenance(rt), () => rollups.stop()];
  return { server: started.server, close: async () => void (await Promise.all(stops.map((stop) => stop()))) };
});
