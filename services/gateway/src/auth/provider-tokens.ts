import { ConfigCache, hashToken, type ChangeBus, type Knex } from '@relay/shared';

export interface TokenOwner {
  groupId: string;
  groupStatus: 'ACTIVE' | 'INACTIVE';
  rateLimitPerSecond: number | null;
}

/**
 * Game provider tokens are looked up by their SHA-256 (only the hash is stored). Results, including
 * unknown tokens, are cached in-process; every admin change of a token or group clears the cache
 * on every gateway through the change bus, so a revocation is refused everywhere within a second.
 */
export class ProviderTokens {
  private readonly cache: ConfigCache<TokenOwner | null>;

  constructor(private readonly db: Knex, bus: ChangeBus) {
    this.cache = new ConfigCache(['token', 'group'], bus);
  }

  /** The owner of `token` if this gateway already knows it (null: known to be unknown). */
  cached(token: string): TokenOwner | null | undefined {
    return this.cache.peek(hashToken(token));
  }

  async authenticate(token: string): Promise<TokenOwner | null> {
    const hash = hashToken(token);
    return this.cache.getOrLoad(hash, async () => {
      const row = await this.db('provider_tokens as t')
        .join('game_providers as g', 'g.group_id', 't.group_id')
        .where('t.token_hash', hash)
        .whereNull('t.revoked_at')
        .first('g.group_id', 'g.status', 'g.rate_limit_per_second');
      return row ? { groupId: row.group_id, groupStatus: row.status, rateLimitPerSecond: row.rate_limit_per_second } : null;
    });
  }
}

/** `Authorization: Bearer <token>`; anything else is no token at all. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S{1,512})\s*$/i.exec(header);
  return match ? match[1] : null;
}
