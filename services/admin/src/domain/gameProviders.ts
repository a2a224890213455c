import { AppError, hashToken, newId, randomSecret } from '@relay/shared';
import * as groups from '../data/gameProviders';
import type { GameProviderRecord, ProviderTokenRecord } from '../data/gameProviders';
import type { AdminDeps } from './deps';
import { parseLaunchPublicKey } from './publicKey';

export interface GameProviderInput {
  name: string;
  status: 'ACTIVE' | 'INACTIVE';
  rateLimitPerSecond: number | null;
}

/** Status matters most here: an inactive game provider is refused on every route within a second. */
export async function saveGameProvider(deps: AdminDeps, groupId: string, input: GameProviderInput): Promise<GameProviderRecord> {
  const group = await groups.upsertGameProvider(deps.db, { groupId, ...input });
  await deps.publishChange({ kind: 'group', key: groupId });
  return group;
}

export function listGameProviders(deps: AdminDeps, page: number, limit: number): Promise<{ total: number; groups: GameProviderRecord[] }> {
  return groups.listGameProviders(deps.db, page, limit);
}

export async function getGameProvider(deps: AdminDeps, groupId: string): Promise<{ group: GameProviderRecord; tokens: ProviderTokenRecord[] }> {
  const group = await requireGroup(deps, groupId);
  return { group, tokens: await groups.listProviderTokens(deps.db, groupId) };
}

/**
 * A game provider token is an opaque 256-bit random value with a recognisable prefix (so a leaked
 * one is easy to spot in a scanner). Only its SHA-256 is stored; the value is shown once, here.
 */
export async function issueProviderToken(deps: AdminDeps, groupId: string): Promise<{ tokenId: string; token: string }> {
  const token = `grp_${randomSecret(32)}`;
  const tokenId = newId();
  await deps.db.transaction(async (trx) => {
    // Locked so the game provider cannot vanish between the check and the insert.
    if (!(await groups.findGameProvider(trx, groupId, 'share'))) throw groupNotFound(groupId);
    await groups.insertProviderToken(trx, { tokenId, groupId, tokenHash: hashToken(token) });
  });
  await deps.publishChange({ kind: 'token', key: hashToken(token) });
  return { tokenId, token };
}

/** Revocation is what must reach every gateway fastest: the change names the token's hash, the key gateways look tokens up by. */
export async function revokeProviderToken(deps: AdminDeps, groupId: string, tokenId: string): Promise<void> {
  await requireGroup(deps, groupId);
  const tokenHash = await groups.revokeProviderToken(deps.db, groupId, tokenId);
  if (tokenHash === null) throw new AppError('TOKEN_NOT_FOUND', `Game provider "${groupId}" has no token "${tokenId}"`);
  await deps.publishChange({ kind: 'token', key: tokenHash });
}

/** Opt-in to (or rotation of) encrypted launch parameters. */
export async function setLaunchEncryptionKey(deps: AdminDeps, groupId: string, publicKeyPem: string): Promise<{ groupId: string; publicKeyPem: string; modulusLength: number; updatedAt: Date }> {
  const key = parseLaunchPublicKey(publicKeyPem);
  const group = await groups.setLaunchPublicKey(deps.db, groupId, key.pem);
  if (!group) throw groupNotFound(groupId);
  await deps.publishChange({ kind: 'group', key: groupId });
  return { groupId, publicKeyPem: key.pem, modulusLength: key.modulusLength, updatedAt: group.updatedAt };
}

/** Opt-out: launch parameters are forwarded in the clear again. */
export async function removeLaunchEncryptionKey(deps: AdminDeps, groupId: string): Promise<void> {
  const group = await groups.setLaunchPublicKey(deps.db, groupId, null);
  if (!group) throw groupNotFound(groupId);
  await deps.publishChange({ kind: 'group', key: groupId });
}

async function requireGroup(deps: AdminDeps, groupId: string): Promise<GameProviderRecord> {
  const group = await groups.findGameProvider(deps.db, groupId);
  if (!group) throw groupNotFound(groupId);
  return group;
}

export function groupNotFound(groupId: string): AppError {
  return new AppError('GROUP_NOT_FOUND', `No game provider with groupId "${groupId}"`);
}
