import { readFileSync } from 'node:fs';
import path from 'node:path';
import { casinoSignatureProblem, SIGNATURE_HEADER, signCasinoRequest, TIMESTAMP_HEADER } from '@relay/shared';
import { REPO_ROOT } from './support';

/**
 * docs/api/casino-signature-vectors.json is what casino implementers test their verification
 * against; the relay's own signer (the one every wallet call uses) must produce every vector.
 */
interface Vector {
  name: string;
  secret: string;
  timestamp: string;
  body: string;
  bodyHex: string;
  headers: { 'X-Relay-Timestamp': string; 'X-Relay-Signature': string };
}

const file = JSON.parse(readFileSync(path.join(REPO_ROOT, 'docs/api/casino-signature-vectors.json'), 'utf8')) as { vectors: Vector[] };

describe('published casino signature test vectors', () => {
  it('When the vectors are read, then there are several, with distinct bodies and signatures, named after the headers the relay sends', () => {
    expect(file.vectors.length).toBeGreaterThanOrEqual(5);
    expect(new Set(file.vectors.map((v) => v.headers['X-Relay-Signature'])).size).toBe(file.vectors.length);
    expect(['X-Relay-Timestamp', 'X-Relay-Signature'].map((h) => h.toLowerCase())).toEqual([TIMESTAMP_HEADER, SIGNATURE_HEADER]);
  });

  it.each(file.vectors.map((v) => [v.name, v] as const))('When the relay signs vector "%s", then it produces exactly the published header', (_name, v) => {
    const bytes = Buffer.from(v.bodyHex, 'hex');
    expect(bytes.toString('utf8')).toBe(v.body);
    expect(v.headers['X-Relay-Timestamp']).toBe(v.timestamp);
    expect(signCasinoRequest(v.secret, v.timestamp, bytes)).toBe(v.headers['X-Relay-Signature']);
    expect(signCasinoRequest(v.secret, Number(v.timestamp), v.body)).toBe(v.headers['X-Relay-Signature']);
  });

  it.each(file.vectors.map((v) => [v.name, v] as const))('When a casino verifies vector "%s" at its timestamp, then it is valid, and invalid with one byte or the secret changed', (_name, v) => {
    const bytes = Buffer.from(v.bodyHex, 'hex');
    const at = { nowSeconds: Number(v.timestamp) };
    expect(casinoSignatureProblem(v.secret, v.timestamp, bytes, v.headers['X-Relay-Signature'], at)).toBeNull();
    const tampered = Buffer.from(bytes);
    tampered[tampered.length - 2] ^= 1;
    expect(casinoSignatureProblem(v.secret, v.timestamp, tampered, v.headers['X-Relay-Signature'], at)).toBe('mismatch');
    expect(casinoSignatureProblem(`${v.secret}x`, v.timestamp, bytes, v.headers['X-Relay-Signature'], at)).toBe('mismatch');
    expect(casinoSignatureProblem(v.secret, v.timestamp, bytes, v.headers['X-Relay-Signature'], { nowSeconds: Number(v.timestamp) + 301 })).toBe('stale');
  });
});
