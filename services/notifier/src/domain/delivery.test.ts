import { deliveryFailure, type Delivery } from './delivery';

const ok = (providerId: string): Delivery => ({ providerId, ok: true });
const failed = (providerId: string, code: Extract<Delivery, { ok: false }>['code']): Delivery => ({ providerId, ok: false, code, message: 'why' });

describe('deliveryFailure', () => {
  it('When every casino was notified, then there is no error', () => {
    expect(deliveryFailure([ok('a'), ok('b')])).toBeNull();
  });

  it('When one casino failed, then its code is answered and its id named', () => {
    const err = deliveryFailure([ok('a'), failed('b', 'AUTHENTICATION_TOKEN_EXPIRED')]);
    expect(err?.code).toBe('AUTHENTICATION_TOKEN_EXPIRED');
    expect(err?.status).toBe(403);
    expect(err?.message).toContain('b');
  });

  it('When several casinos failed, then the repeat-worthy code wins: 408 over 502 over 403', () => {
    expect(deliveryFailure([failed('a', 'AUTHENTICATION_TOKEN_EXPIRED'), failed('b', 'PROVIDER_API_FAILURE')])?.code).toBe('PROVIDER_API_FAILURE');
    expect(deliveryFailure([failed('a', 'PROVIDER_API_FAILURE'), failed('b', 'INTEGRATION_TIMED_OUT'), failed('c', 'AUTHENTICATION_TOKEN_EXPIRED')])?.code).toBe(
      'INTEGRATION_TIMED_OUT',
    );
  });

  it('When several casinos failed, then the message names each of them with its code', () => {
    const err = deliveryFailure([ok('a'), failed('b', 'PROVIDER_API_FAILURE'), failed('c', 'INTEGRATION_TIMED_OUT')]);
    expect(err?.status).toBe(408);
    expect(err?.message).toBe('2 casinos were not notified: b (PROVIDER_API_FAILURE), c (INTEGRATION_TIMED_OUT); 1 notified');
  });
});
