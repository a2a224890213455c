import { AppError, badRequest, isUniqueViolation, randomSecret, type FreeRoundsMode } from '@relay/shared';
import * as casinos from '../data/casinos';
import type { CasinoRecord } from '../data/casinos';
import type { AdminDeps } from './deps';

export interface CasinoInput {
  name: string;
  walletUrl: string;
  walletSecret?: string;
  launchKey?: string;
  status: 'ACTIVE' | 'INACTIVE';
  refundOnCreditFail: boolean;
  creditOnDisconnect: boolean;
}

/** Secrets this request generated: shown once, in this response only. */
export interface GeneratedSecrets {
  walletSecret?: string;
  launchKey?: string;
}

/** 32 random bytes as base64url, the launch key format of docs/integrating-a-casino.md. */
export function newLaunchKey(): string {
  return randomSecret(32);
}

/**
 * Create or replace a casino. A create generates every secret it was not given. A replace keeps a
 * stored secret the body does not name: a replace that changes a name or a status must not silently
 * rotate the credential the casino signs its wallet with, which would break every live session.
 * Rotation is explicit: supply the new secret.
 */
export async function saveCasino(deps: AdminDeps, providerId: string, input: CasinoInput): Promise<{ casino: CasinoRecord; generated: GeneratedSecrets }> {
  // The wallet sends each player's wallet token to this address: never to an internal one.
  const refused = await deps.walletAddresses?.urlRefusal(input.walletUrl);
  if (refused) {
    throw badRequest('walletUrl must be a public address (or be named in CASINO_PRIVATE_ADDRESS_ALLOWLIST)', [{ path: 'walletUrl', message: refused }]);
  }
  const attempt = () =>
    deps.db.transaction(async (trx) => {
      const existing = await casinos.findCasino(trx, providerId, 'update');
      const fields = {
        providerId,
        name: input.name,
        walletUrl: input.walletUrl,
        status: input.status,
        refundOnCreditFail: input.refundOnCreditFail,
        creditOnDisconnect: input.creditOnDisconnect,
      };
      if (existing) {
        const casino = await casinos.updateCasino(trx, {
          ...fields,
          walletSecretEnc: input.walletSecret !== undefined ? deps.secrets.seal(input.walletSecret) : null,
          launchKeyEnc: input.launchKey !== undefined ? deps.secrets.seal(input.launchKey) : null,
        });
        return { casino, generated: {} };
      }
      const generated: GeneratedSecrets = {};
      if (input.walletSecret === undefined) generated.walletSecret = randomSecret(32);
      if (input.launchKey === undefined) generated.launchKey = newLaunchKey();
      const casino = await casinos.insertCasino(trx, {
        ...fields,
        walletSecretEnc: deps.secrets.seal(input.walletSecret ?? (generated.walletSecret as string)),
        launchKeyEnc: deps.secrets.seal(input.launchKey ?? (generated.launchKey as string)),
      });
      return { casino, generated };
    });

  let result;
  try {
    result = await attempt();
  } catch (err) {
    // Two creates of one id at once: the loser becomes a replace of the winner's casino, so the
    // secrets the winner returned stay the valid ones.
    if (!isUniqueViolation(err)) throw err;
    result = await attempt();
  }
  await deps.publishChange({ kind: 'casino', key: providerId });
  return result;
}

/**
 * Removes the casino and (by cascade) its game and currency configs. Rounds and transactions keep
 * their providerId and stay in reporting.
 */
/** Deletes a casino and revokes its tokens and casino-scoped accounts (data/casinos.ts); their sessions end now. */
export async function deleteCasino(deps: AdminDeps, providerId: string): Promise<{ tokensRevoked: number; accountsDisabled: number }> {
  const { deleted, tokensRevoked, accountsDisabled } = await casinos.deleteCasino(deps.db, providerId);
  if (!deleted) throw providerNotFound(providerId);
  // The 'casino' change clears every gateway's casino API token cache too.
  await deps.publishChange({ kind: 'casino', key: providerId }, { kind: 'config', key: providerId });
  for (const accountId of accountsDisabled) await deps.sessions.revokeAccount(accountId);
  return { tokensRevoked, accountsDisabled: accountsDisabled.length };
}

export async function getCasino(deps: AdminDeps, providerId: string): Promise<CasinoRecord> {
  const casino = await casinos.findCasino(deps.db, providerId);
  if (!casino) throw providerNotFound(providerId);
  return casino;
}

export function listCasinos(deps: AdminDeps, page: number, limit: number): Promise<{ total: number; casinos: CasinoRecord[] }> {
  return casinos.listCasinos(deps.db, page, limit);
}

export function providerNotFound(providerId: string): AppError {
  return new AppError('PROVIDER_NOT_FOUND', `No casino with providerId "${providerId}"`);
}

/** A casino's free-rounds mode (issue 35). */
export async function getFreeRoundsMode(deps: AdminDeps, providerId: string): Promise<FreeRoundsMode> {
  const mode = await casinos.findFreeRoundsMode(deps.db, providerId);
  if (!mode) throw providerNotFound(providerId);
  return mode;
}

/**
 * Sets a casino's free-rounds mode. The wallet reads it with the casino's configuration, so the
 * same 'casino' change drops it from every cache: it applies to the next freebet credit. A credit
 * claimed before the switch keeps the mode it was claimed under: its replays never consult awards.
 */
export async function setFreeRoundsMode(deps: AdminDeps, providerId: string, mode: FreeRoundsMode): Promise<FreeRoundsMode> {
  if (!(await casinos.updateFreeRoundsMode(deps.db, providerId, mode))) throw providerNotFound(providerId);
  await deps.publishChange({ kind: 'casino', key: providerId });
  return mode;
}
