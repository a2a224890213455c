import type { Knex } from '@relay/shared';

export interface CasinoTokenRecord {
  tokenId: string;
  providerId: string;
  name: string;
  createdBy: string;
  createdAt: Date;
  revokedAt: Date | null;
}

const COLUMNS = ['token_id', 'provider_id', 'name', 'created_by', 'created_at', 'revoked_at'];

function toToken(row: Record<string, any>): CasinoTokenRecord {
  return { tokenId: row.token_id, providerId: row.provider_id, name: row.name, createdBy: row.created_by, createdAt: row.created_at, revokedAt: row.revoked_at };
}

export async function insertToken(db: Knex, input: { tokenId: string; providerId: string; name: string; tokenHash: string; createdBy: string }): Promise<CasinoTokenRecord> {
  const [row] = await db('casino_api_tokens')
    .insert({ token_id: input.tokenId, provider_id: input.providerId, name: input.name, token_hash: input.tokenHash, created_by: input.createdBy })
    .returning(COLUMNS);
  return toToken(row);
}

export async function listTokens(query: Knex.QueryBuilder): Promise<CasinoTokenRecord[]> {
  return (await query.orderBy('created_at').select(COLUMNS)).map(toToken);
}

export function tokensQuery(db: Knex): Knex.QueryBuilder {
  return db('casino_api_tokens');
}

/** Returns the token before and after, and its hash (the key gateways cache it under); null when unknown or already revoked. */
export async function revokeToken(db: Knex, providerId: string, tokenId: string): Promise<{ before: CasinoTokenRecord; after: CasinoTokenRecord; tokenHash: string } | null> {
  const before = await db('casino_api_tokens').where({ provider_id: providerId, token_id: tokenId }).whereNull('revoked_at').forUpdate().first([...COLUMNS, 'token_hash']);
  if (!before) return null;
  const [after] = await db('casino_api_tokens').where({ token_id: tokenId }).update({ revoked_at: db.fn.now() }).returning(COLUMNS);
  return { before: toToken(before), after: toToken(after), tokenHash: before.token_hash };
}
