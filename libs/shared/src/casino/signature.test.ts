import { createHmac } from 'node:crypto';
import { casinoSignatureProblem, signCasinoRequest, verifyCasinoSignature } from './signature';

describe('casino request signature', () => {
  const secret = 'wallet-secret-1';
  const body = '{"providerId":"c1","amount":10.5}';
  const now = 1_800_000_000;

  it('When a body is signed, then the signature is v1= and the hex HMAC-SHA256 of "timestamp.body"', () => {
    const expected = createHmac('sha256', secret).update(`${now}.${body}`).digest('hex');
    expect(signCasinoRequest(secret, now, body)).toBe(`v1=${expected}`);
    expect(signCasinoRequest(secret, String(now), Buffer.from(body))).toBe(`v1=${expected}`);
  });

  it('When the signature, secret and time are right, then it verifies', () => {
    expect(verifyCasinoSignature(secret, String(now), body, signCasinoRequest(secret, now, body), { nowSeconds: now + 10 })).toBe(true);
  });

  it('When any byte of the body, the secret or the timestamp differs, then it does not verify', () => {
    const sig = signCasinoRequest(secret, now, body);
    expect(casinoSignatureProblem(secret, String(now), body.replace('10.5', '10.50'), sig, { nowSeconds: now })).toBe('mismatch');
    expect(casinoSignatureProblem('other', String(now), body, sig, { nowSeconds: now })).toBe('mismatch');
    expect(casinoSignatureProblem(secret, String(now + 1), body, sig, { nowSeconds: now })).toBe('mismatch');
  });

  it('When the headers are missing or malformed, then it does not verify', () => {
    const sig = signCasinoRequest(secret, now, body);
    expect(casinoSignatureProblem(secret, undefined, body, sig, { nowSeconds: now })).toBe('missing');
    expect(casinoSignatureProblem(secret, String(now), body, undefined, { nowSeconds: now })).toBe('missing');
    expect(casinoSignatureProblem(secret, 'yesterday', body, sig, { nowSeconds: now })).toBe('malformed');
    expect(casinoSignatureProblem(secret, String(now), body, sig.toUpperCase(), { nowSeconds: now })).toBe('malformed');
    expect(casinoSignatureProblem(secret, String(now), body, sig.slice(3), { nowSeconds: now })).toBe('malformed');
  });

  it('When the timestamp is more than 5 minutes away from now, then it is refused as stale', () => {
    const old = now - 301;
    expect(casinoSignatureProblem(secret, String(old), body, signCasinoRequest(secret, old, body), { nowSeconds: now })).toBe('stale');
    const edge = now - 300;
    expect(casinoSignatureProblem(secret, String(edge), body, signCasinoRequest(secret, edge, body), { nowSeconds: now })).toBeNull();
    const future = now + 301;
    expect(casinoSignatureProblem(secret, String(future), body, signCasinoRequest(secret, future, body), { nowSeconds: now })).toBe('stale');
    expect(casinoSignatureProblem(secret, String(old), body, signCasinoRequest(secret, old, body), { nowSeconds: now, maxSkewSeconds: 600 })).toBeNull();
  });
});
