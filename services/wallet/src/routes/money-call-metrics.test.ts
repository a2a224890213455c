import { ServiceMetrics } from '@relay/shared';
import { moneyCallMetrics, moneyCallResult } from './money-call-metrics';

describe('money call result', () => {
  it.each([
    [200, undefined, 'ok'],
    [400, 'Bad Request', 'client_error'],
    [409, 'TRANSACTION_IN_FLIGHT', 'client_error'],
    [403, 'SESSION_EXPIRED', 'client_error'],
    [400, 'FUND_WITHDRAW_FAILED', 'declined'],
    [403, 'AUTHENTICATION_TOKEN_EXPIRED', 'declined'],
    [500, 'CASHOUT_FAILED', 'casino_error'],
    [502, 'PROVIDER_API_FAILURE', 'casino_error'],
    [502, 'INVALID_PROVIDER_RESPONSE', 'casino_error'],
    [408, 'INTEGRATION_TIMED_OUT', 'casino_error'],
    [500, 'INTERNAL_ERROR', 'relay_error'],
    [503, 'SERVICE_UNAVAILABLE', 'relay_error'],
    [500, undefined, 'relay_error'],
    [499, undefined, 'client_error'],
  ])('When the answer is %i %s, then the call counts as %s', (status, code, result) => {
    expect(moneyCallResult(status, code)).toBe(result);
  });
});

describe('relay_money_calls_total at start', () => {
  it('When the wallet starts, then the series of calls refused before a session named their casino ("unknown") exist at zero', async () => {
    const metrics = new ServiceMetrics('wallet');
    moneyCallMetrics(metrics);
    const text = await metrics.registry.metrics();
    // A game's first call with an unknown session is counted here: increase() must see it.
    expect(text).toContain('relay_money_calls_total{provider_id="unknown",operation="cash-out",result="client_error",service="wallet"} 0');
  });
});
