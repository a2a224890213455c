import { CompactEncrypt } from 'jose';

/**
 * The casino token of docs/integrating-a-casino.md: a compact JWE, {"alg":"dir","enc":"A256GCM"}, keyed with the
 * casino's 32-byte launchKey, whose plaintext is a JSON claims set. In the demo and in tests the
 * sandbox plays the casino, so it is the one holding the launch key.
 */
export interface LaunchTokenOptions {
  /** base64url text of 32 random bytes. */
  launchKey: string;
  providerId: string;
  playerId: string;
  walletToken: string;
  /** NumericDate; default five minutes from now. */
  exp?: number;
  username?: string;
  currency?: string;
  gameId?: number | string;
  jti?: string;
  /** Extra or replacing claims, for tests of bad tokens (an undefined value removes the claim). */
  claims?: Record<string, unknown>;
}

export async function createLaunchToken(options: LaunchTokenOptions): Promise<string> {
  const key = Buffer.from(options.launchKey, 'base64url');
  if (key.length !== 32) throw new Error('launchKey must be the base64url text of 32 bytes');
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = {
    providerId: options.providerId,
    playerId: options.playerId,
    walletToken: options.walletToken,
    iat: now,
    exp: options.exp ?? now + 300,
    ...(options.username !== undefined ? { username: options.username } : {}),
    ...(options.currency !== undefined ? { currency: options.currency } : {}),
    ...(options.gameId !== undefined ? { gameId: options.gameId } : {}),
    ...(options.jti !== undefined ? { jti: options.jti } : {}),
    ...options.claims,
  };
  const plaintext = new TextEncoder().encode(JSON.stringify(claims));
  return new CompactEncrypt(plaintext).setProtectedHeader({ alg: 'dir', enc: 'A256GCM' }).encrypt(new Uint8Array(key));
}
