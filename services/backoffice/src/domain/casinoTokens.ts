import { AppError, hashToken, newId, randomSecret } from '@relay/shared';
import * as tokens from '../data/casinoTokens';
import type { CasinoTokenRecord } from '../data/casinoTokens';
import { authorize, scopeFilter, type Caller } from './access';
import { audited, type RequestFacts } from './audit';
import type { BackofficeDeps } from './deps';

/** The prefix tells the gateway (and a leak scanner) what kind of token it holds. */
export const CASINO_TOKEN_PREFIX = 'cat_';

/**
 * A casino's systems read their own records with a casino API token: the same reads as a casino
 * `support` account, and the one write its bonus systems need, its free-round awards
 * (access.ts, `free-rounds:manage`). 256 random bits, shown once, stored only as SHA-256.
 */
export async function issueCasinoToken(deps: BackofficeDeps, facts: RequestFacts, providerId: string, name: string): Promise<CasinoTokenRecord & { token: string }> {
  authorize(facts.caller, 'casino-tokens:manage');
  const token = `${CASINO_TOKEN_PREFIX}${randomSecret(32)}`;
  const record = await audited(deps, facts, 'casino-token.issue', async (trx) => {
    if (!(await trx('casinos').where({ provider_id: providerId }).forShare().first('provider_id'))) {
      throw new AppError('PROVIDER_NOT_FOUND', `No casino with providerId "${providerId}"`);
    }
    const created = await tokens.insertToken(trx, { tokenId: newId(), providerId, name, tokenHash: hashToken(token), createdBy: facts.caller.actorId });
    return { result: created, target: `casino-token:${created.tokenId}`, before: null, after: created };
  });
  await publish(deps, hashToken(token));
  return { ...record, token };
}

export async function listCasinoTokens(deps: BackofficeDeps, caller: Caller, providerId: string): Promise<CasinoTokenRecord[]> {
  authorize(caller, 'casino-tokens:manage');
  return tokens.listTokens(scopeFilter(tokens.tokensQuery(deps.db), caller.scope, { providerId: 'provider_id' }).where({ provider_id: providerId }));
}

/** Refused by every gateway within a second: the change names the token's hash, the key gateways cache it by. */
export async function revokeCasinoToken(deps: BackofficeDeps, facts: RequestFacts, providerId: string, tokenId: string): Promise<void> {
  authorize(facts.caller, 'casino-tokens:manage');
  const tokenHash = await audited(deps, facts, 'casino-token.revoke', async (trx) => {
    const revoked = await tokens.revokeToken(trx, providerId, tokenId);
    if (!revoked) throw new AppError('TOKEN_NOT_FOUND', `Casino "${providerId}" has no live API token "${tokenId}"`);
    return { result: revoked.tokenHash, target: `casino-token:${tokenId}`, before: revoked.before, after: revoked.after };
  });
  await publish(deps, tokenHash);
}

async function publish(deps: BackofficeDeps, tokenHash: string): Promise<void> {
  try {
    await deps.bus.publish({ kind: 'casino-api-token', key: tokenHash });
  } catch (err) {
    deps.logger.error({ err }, 'could not publish a casino API token change; caches expire it on their own');
  }
}
