import { serviceMain } from '@relay/shared';
import { startAdmin } from './index';
import { startLedgerMaintenance } from './ledger';

serviceMain('admin', async (rt, port) => {
  const started = await startAdmin(rt, port);
  // The ledger's maintenance jobs (docs/ledger.md), stopped at shutdown before the pools close.
  const stops = [startLedgerMaintenance(rt)];
  return { server: started.server, close: async () => void (await Promise.all(stops.map((stop) => stop()))) };
});
