import type { Runtime } from '../runtime';
import { CasinoAddressPolicy } from './address-policy';
import { CasinoClient } from './client';

/**
 * The casino client of a service process: its time-out and address policy from the config, and its
 * metrics started at zero for every casino on record (again whenever a casino is provisioned), so
 * an alert sees a casino's very first failure.
 */
export function createCasinoClient(rt: Runtime, onCasinos?: (providerIds: string[]) => void): CasinoClient {
  const client = new CasinoClient({
    timeoutMs: rt.config.CASINO_TIMEOUT_MS,
    logger: rt.logger,
    metrics: rt.metrics,
    addressPolicy: CasinoAddressPolicy.fromConfig(rt.config),
  });
  const learn = () =>
    rt.db.primary('casinos')
      .pluck('provider_id')
      .then((ids: string[]) => {
        client.knowCasinos(ids);
        onCasinos?.(ids);
      })
      .catch((err: Error) => rt.logger.warn({ err: { message: err.message } }, 'could not list casinos for their metrics'));
  void learn();
  rt.bus.onChange((change) => {
    if (change === null || change.kind === 'casino') void learn();
  });
  return client;
}
