import { serviceMain } from '@relay/shared';
import { startAdmin } from './index';
import { startLedgerMaintenance } from '@relay/ledger/jobs';

serviceMain('admin', async (rt, port) => {
  const started = await startAdmin(rt, port);
  // The ledger's maintenance jobs (docs/ledger.md), stopped at shutdown before the pools close:
  // partitions and retention on the money database, partitions and retention on the reporting
  // database, and the replicated heartbeat.
  const stop = startLedgerMaintenance(rt);
  return { server: started.server, close: stop };
});
