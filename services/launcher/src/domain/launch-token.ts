import { jwtDecrypt } from 'jose';
import { AppError } from '@relay/shared';

/** The claims of a casino launch token (docs/integrating-a-casino.md) once decrypted and checked. */
export interface LaunchClaims {
  providerId: string;
  playerId: string;
  walletToken: string;
  exp: number;
  username?: string;
  currency?: string;
  gameId?: number;
  jti?: string;
}

const invalid = (why: string) => new AppError('INVALID_LAUNCH_TOKEN', `Launch token refused: ${why}`);

/**
 * Decrypts the JWE with the casino's 32-byte launch key and checks every claim against the launch
 * parameters. Any failure is the same 401 so the answer teaches an attacker nothing.
 */
export async function openLaunchToken(
  token: string,
  launchKey: string,
  expected: { providerId: string; gameId: number; currency: string },
): Promise<LaunchClaims> {
  const key = Buffer.from(launchKey, 'base64url');
  let payload: Record<string, unknown>;
  try {
    const result = await jwtDecrypt(token, key, {
      keyManagementAlgorithms: ['dir'],
      contentEncryptionAlgorithms: ['A256GCM'],
      requiredClaims: ['exp'],
      clockTolerance: 5,
    });
    payload = result.payload as Record<string, unknown>;
  } catch {
    throw invalid('it does not decrypt, or it expired');
  }
  const str = (name: string) => (typeof payload[name] === 'string' && (payload[name] as string).length > 0 ? (payload[name] as string) : undefined);
  const providerId = str('providerId');
  const playerId = str('playerId');
  const walletToken = str('walletToken');
  if (!providerId || !playerId || !walletToken) throw invalid('providerId, playerId and walletToken are required');
  if (providerId !== expected.providerId) throw invalid('providerId does not match');
  // PostgreSQL text cannot hold NUL: a session or a spent jti with one could never be stored.
  for (const name of ['playerId', 'username', 'jti']) {
    if (typeof payload[name] === 'string' && (payload[name] as string).includes('\u0000')) throw invalid(`${name} is not valid text`);
  }
  if (playerId.includes(':') || playerId.length > 200) throw invalid('playerId is not a valid identifier');
  if (payload.currency !== undefined && (typeof payload.currency !== 'string' || payload.currency.toUpperCase() !== expected.currency.toUpperCase())) {
    throw invalid('currency does not match');
  }
  if (payload.gameId !== undefined && Number(payload.gameId) !== expected.gameId) throw invalid('gameId does not match');
  if (payload.jti !== undefined && (typeof payload.jti !== 'string' || payload.jti.length === 0 || payload.jti.length > 200)) throw invalid('jti is not valid');
  if (payload.username !== undefined && typeof payload.username !== 'string') throw invalid('username is not a string');
  return {
    providerId,
    playerId,
    walletToken,
    exp: payload.exp as number,
    username: payload.username as string | undefined,
    currency: payload.currency as string | undefined,
    gameId: payload.gameId === undefined ? undefined : Number(payload.gameId),
    jti: payload.jti as string | undefined,
  };
}
