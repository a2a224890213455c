import { ServiceMetrics } from '@relay/shared';
import { callResults } from './call-results';

describe('relay_money_calls_total', () => {
  it('When the wallet starts, then the series of calls refused before a session named their casino ("unknown") exist at zero', async () => {
    const metrics = new ServiceMetrics('wallet');
    callResults(metrics);
    const text = await metrics.registry.metrics();
    // A game's first call with an unknown session is counted here: increase() must see it.
    expect(text).toContain('relay_money_calls_total{provider_id="unknown",operation="cash-out",result="client_error",service="wallet"} 0');
  });
});
