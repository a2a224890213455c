import { CompactEncrypt, importSPKI, type KeyLike } from 'jose';

/**
 * Builds the game frontend address (spec Launch, rules 1-7): the registered frontendUrl with its
 * own query parameters kept and winning any clash, sessionId in the clear, the token dropped, and
 * every other launch parameter forwarded verbatim, or sealed in `payload` when the game provider
 * published an RSA key.
 */
export async function buildRedirect(
  frontendUrl: string,
  launchQuery: URLSearchParams,
  sessionId: string,
  publicKey: KeyLike | null,
): Promise<string> {
  const target = new URL(frontendUrl);
  const own = new Set(target.searchParams.keys());
  const reserved = new Set(['token', 'sessionId', ...(publicKey ? ['payload'] : [])]);
  const forwarded = new URLSearchParams();
  for (const [name, value] of launchQuery) {
    if (reserved.has(name) || own.has(name)) continue;
    forwarded.append(name, value);
  }
  target.searchParams.set('sessionId', sessionId);
  if (!publicKey) {
    for (const [name, value] of forwarded) target.searchParams.append(name, value);
    return target.toString();
  }
  const plaintext = forwarded.toString();
  if (plaintext.length > 0) {
    const jwe = await new CompactEncrypt(new TextEncoder().encode(plaintext))
      .setProtectedHeader({ alg: 'RSA-OAEP-256', enc: 'A256GCM', cty: 'application/x-www-form-urlencoded' })
      .encrypt(publicKey);
    target.searchParams.set('payload', jwe);
  }
  return target.toString();
}

const keyCache = new Map<string, Promise<KeyLike>>();

/** Imported keys are cached by their PEM text, so rotation (a new PEM) takes effect at once. */
export function importLaunchPublicKey(pem: string): Promise<KeyLike> {
  let key = keyCache.get(pem);
  if (!key) {
    key = importSPKI(pem, 'RSA-OAEP-256');
    if (keyCache.size > 1000) keyCache.clear();
    keyCache.set(pem, key);
  }
  return key;
}
