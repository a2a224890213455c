import { listen, Registry, type Runtime, type RunningServer } from '@relay/shared';
import { createNotifierApp } from './app';
import { notificationJournal } from './data/notifications';
import { QueuedDelivery } from './queue/queued-delivery';

export { startNotifierWorker, type NotifierWorker, type NotifierWorkerOptions } from './worker-start';

/**
 * The notifier API: validates round-ended calls, resolves the casinos and queues one job per
 * casino. The deliveries run in the notifier worker process (worker.ts).
 */
export async function startNotifier(rt: Runtime, port: number): Promise<{ server: RunningServer; close: () => Promise<void> }> {
  const delivery = await QueuedDelivery.start(rt);
  const deps = { casinos: new Registry(rt.db.primary, rt.secrets, rt.bus), delivery, journal: notificationJournal(rt.db.primary, rt.logger) };
  try {
    const server = await listen(createNotifierApp(rt, deps, delivery.readinessChecks()), port, rt.config.SERVICE_HOST);
    return { server, close: () => delivery.close() };
  } catch (err) {
    await delivery.close();
    throw err;
  }
}

// The request schema and routes, from which the API reference (tools/openapi) is generated.
export { roundEndedBody, roundEndedRoutes, MAX_PROVIDER_IDS } from './routes/round-ended-route';
