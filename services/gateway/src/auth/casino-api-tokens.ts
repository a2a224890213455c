import { ConfigCache, hashToken, type ChangeBus, type Knex } from '@relay/shared';

/**
 * Casino API tokens, looked up by SHA-256 like game provider tokens and cached the same way:
 * issuing or revoking one publishes a `casino-api-token` change that clears every gateway's
 * cache, so a revoked token is refused everywhere within a second.
 */
export class CasinoApiTokens {
  private readonly cache: ConfigCache<{ tokenId: string; providerId: string } | null>;

  constructor(private readonly db: Knex, bus: ChangeBus) {
    this.cache = new ConfigCache(['casino-api-token', 'casino'], bus);
  }

  /** The owner of `token` if this gateway already knows it (null: known to be unknown). */
  cached(token: string): { tokenId: string; providerId: string } | null | undefined {
    return this.cache.peek(hashToken(token));
  }

  async authenticate(token: string): Promise<{ tokenId: string; providerId: string } | null> {
    const hash = hashToken(token);
    return this.cache.getOrLoad(hash, async () => {
      // A deleted casino's tokens stop working with it (the join finds no casino).
      const row = await this.db('casino_api_tokens as t')
        .join('casinos as c', 'c.provider_id', 't.provider_id')
        .where('t.token_hash', hash)
        .whereNull('t.revoked_at')
        .first('t.token_id', 't.provider_id');
      return row ? { tokenId: row.token_id, providerId: row.provider_id } : null;
    });
  }
}
