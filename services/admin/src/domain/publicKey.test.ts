import { generateKeyPairSync } from 'node:crypto';
import { parseLaunchPublicKey } from './publicKey';

describe('parseLaunchPublicKey', () => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const spki = publicKey.export({ type: 'spki', format: 'pem' }).toString();

  test('When a 2048-bit SPKI key is given, then it is accepted unchanged', () => {
    expect(parseLaunchPublicKey(spki)).toEqual({ pem: spki, modulusLength: 2048 });
  });

  test('When the words PRIVATE KEY appear anywhere, then it is refused before parsing', () => {
    expect(() => parseLaunchPublicKey(`${spki}\n# not a PRIVATE KEY, promise`)).toThrow(expect.objectContaining({ code: 'INVALID_PUBLIC_KEY' }));
    const pkcs1Private = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    expect(() => parseLaunchPublicKey(pkcs1Private)).toThrow(expect.objectContaining({ code: 'INVALID_PUBLIC_KEY' }));
  });

  test('When an RSA-PSS key is given, then it is refused (RSA-OAEP needs a plain RSA key)', () => {
    const pss = generateKeyPairSync('rsa-pss', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(() => parseLaunchPublicKey(pss)).toThrow(expect.objectContaining({ code: 'INVALID_PUBLIC_KEY' }));
  });

  test('When a certificate is given instead of a key block, then it is refused', () => {
    expect(() => parseLaunchPublicKey('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n')).toThrow(
      expect.objectContaining({ code: 'INVALID_PUBLIC_KEY' }),
    );
  });
});
