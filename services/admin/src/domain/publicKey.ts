import { createPublicKey, type KeyObject } from 'node:crypto';
import { AppError } from '@relay/shared';

export const MIN_RSA_BITS = 2048;

/**
 * Spec, encrypted launch parameters: an RSA public key of 2048 bits or more, as a PEM block;
 * anything containing PRIVATE KEY is refused outright (even though a public key could be derived
 * from it, the game provider has just leaked its private key and must make a new pair).
 * The key is stored as SPKI PEM whatever PEM flavour came in, so the launcher reads one format.
 */
export function parseLaunchPublicKey(text: string): { pem: string; modulusLength: number } {
  if (/PRIVATE\s*KEY/i.test(text)) {
    throw invalid('This is a private key: send only the public key (BEGIN PUBLIC KEY) and replace the exposed key pair');
  }
  if (!/-----BEGIN (RSA )?PUBLIC KEY-----/.test(text)) throw invalid('Expected a PEM block beginning with -----BEGIN PUBLIC KEY-----');
  let key: KeyObject;
  try {
    key = createPublicKey({ key: text, format: 'pem' });
  } catch {
    throw invalid('The PEM block is not a readable public key');
  }
  // rsa-pss keys cannot do RSA-OAEP, which the launch parameter encryption uses.
  if (key.asymmetricKeyType !== 'rsa') throw invalid(`Expected an RSA key, got ${key.asymmetricKeyType ?? 'an unknown key type'}`);
  const modulusLength = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (modulusLength < MIN_RSA_BITS) throw invalid(`The RSA key has ${modulusLength} bits; at least ${MIN_RSA_BITS} are required`);
  return { pem: key.export({ type: 'spki', format: 'pem' }).toString(), modulusLength };
}

function invalid(message: string): AppError {
  return new AppError('INVALID_PUBLIC_KEY', message);
}
