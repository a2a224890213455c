import type { Knex } from '@relay/shared';

export interface GameProviderRecord {
  groupId: string;
  name: string;
  status: 'ACTIVE' | 'INACTIVE';
  rateLimitPerSecond: number | null;
  launchPublicKeyPem: string | null;
  createdAt: Date;
  updatedAt: Date;
}

interface GameProviderRow {
  group_id: string;
  name: string;
  status: 'ACTIVE' | 'INACTIVE';
  rate_limit_per_second: number | null;
  launch_public_key_pem: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = ['group_id', 'name', 'status', 'rate_limit_per_second', 'launch_public_key_pem', 'created_at', 'updated_at'];

function toRecord(row: GameProviderRow): GameProviderRecord {
  return {
    groupId: row.group_id,
    name: row.name,
    status: row.status,
    rateLimitPerSecond: row.rate_limit_per_second,
    launchPublicKeyPem: row.launch_public_key_pem,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function findGameProvider(db: Knex, groupId: string, lock?: 'share'): Promise<GameProviderRecord | null> {
  let query = db<GameProviderRow>('game_providers').select(COLUMNS).where({ group_id: groupId }).first();
  if (lock === 'share') query = query.forShare();
  const row = (await query) as GameProviderRow | undefined;
  return row ? toRecord(row) : null;
}

/** Oldest first (ids in creation order read like a register); without tokens. */
export async function listGameProviders(db: Knex, page: number, limit: number): Promise<{ total: number; groups: GameProviderRecord[] }> {
  const [{ count }] = (await db('game_providers').count<{ count: string }[]>({ count: '*' })) as { count: string }[];
  const rows = (await db('game_providers')
    .select(COLUMNS)
    .orderBy([{ column: 'created_at', order: 'asc' }, { column: 'group_id', order: 'asc' }])
    .limit(limit)
    .offset((page - 1) * limit)) as GameProviderRow[];
  return { total: Number(count), groups: rows.map(toRecord) };
}

/** Create or replace name, status and rate limit; the launch key and tokens have their own routes. */
export async function upsertGameProvider(
  db: Knex,
  g: { groupId: string; name: string; status: 'ACTIVE' | 'INACTIVE'; rateLimitPerSecond: number | null },
): Promise<GameProviderRecord> {
  const [row] = (await db('game_providers')
    .insert({ group_id: g.groupId, name: g.name, status: g.status, rate_limit_per_second: g.rateLimitPerSecond })
    .onConflict('group_id')
    .merge({ name: g.name, status: g.status, rate_limit_per_second: g.rateLimitPerSecond, updated_at: db.fn.now() })
    .returning(COLUMNS)) as GameProviderRow[];
  return toRecord(row);
}

/** Sets (or with null clears) the launch public key; null when the game provider does not exist. */
export async function setLaunchPublicKey(db: Knex, groupId: string, pem: string | null): Promise<GameProviderRecord | null> {
  const [row] = (await db('game_providers')
    .where({ group_id: groupId })
    .update({ launch_public_key_pem: pem, updated_at: db.fn.now() })
    .returning(COLUMNS)) as GameProviderRow[];
  return row ? toRecord(row) : null;
}

export interface ProviderTokenRecord {
  tokenId: string;
  groupId: string;
  createdAt: Date;
  revokedAt: Date | null;
}

interface TokenRow {
  token_id: string;
  group_id: string;
  created_at: Date;
  revoked_at: Date | null;
}

function toToken(row: TokenRow): ProviderTokenRecord {
  return { tokenId: row.token_id, groupId: row.group_id, createdAt: row.created_at, revokedAt: row.revoked_at };
}

/** Only the hash of the token is ever stored. */
export async function insertProviderToken(db: Knex, t: { tokenId: string; groupId: string; tokenHash: string }): Promise<ProviderTokenRecord> {
  const [row] = (await db('provider_tokens')
    .insert({ token_id: t.tokenId, group_id: t.groupId, token_hash: t.tokenHash })
    .returning(['token_id', 'group_id', 'created_at', 'revoked_at'])) as TokenRow[];
  return toToken(row);
}

export async function listProviderTokens(db: Knex, groupId: string): Promise<ProviderTokenRecord[]> {
  const rows = (await db<TokenRow>('provider_tokens')
    .select('token_id', 'group_id', 'created_at', 'revoked_at')
    .where({ group_id: groupId })
    .orderBy('created_at', 'asc')) as TokenRow[];
  return rows.map(toToken);
}

/**
 * Revokes a token of this game provider. Revoking twice keeps the first revocation time. Returns
 * the token's hash (the key caches hold it under), or null when the group has no such token.
 */
export async function revokeProviderToken(db: Knex, groupId: string, tokenId: string): Promise<string | null> {
  const [row] = (await db('provider_tokens')
    .where({ group_id: groupId, token_id: tokenId })
    .update({ revoked_at: db.raw('COALESCE(revoked_at, now())') })
    .returning(['token_hash'])) as { token_hash: string }[];
  return row ? row.token_hash : null;
}
