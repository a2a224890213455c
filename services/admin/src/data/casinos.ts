import type { FreeRoundsMode, Knex } from '@relay/shared';

/** A casino as stored. The sealed secrets never leave the data and domain layers. */
export interface CasinoRecord {
  providerId: string;
  name: string;
  walletUrl: string;
  status: 'ACTIVE' | 'INACTIVE';
  refundOnCreditFail: boolean;
  creditOnDisconnect: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface CasinoWrite {
  providerId: string;
  name: string;
  walletUrl: string;
  status: 'ACTIVE' | 'INACTIVE';
  refundOnCreditFail: boolean;
  creditOnDisconnect: boolean;
  /** null keeps the stored secret (a replace that did not name one). */
  walletSecretEnc: string | null;
  launchKeyEnc: string | null;
}

const COLUMNS = ['provider_id', 'name', 'wallet_url', 'status', 'refund_on_credit_fail', 'credit_on_disconnect', 'created_at', 'updated_at'];

interface CasinoRow {
  provider_id: string;
  name: string;
  wallet_url: string;
  status: 'ACTIVE' | 'INACTIVE';
  refund_on_credit_fail: boolean;
  credit_on_disconnect: boolean;
  created_at: Date;
  updated_at: Date;
}

function toRecord(row: CasinoRow): CasinoRecord {
  return {
    providerId: row.provider_id,
    name: row.name,
    walletUrl: row.wallet_url,
    status: row.status,
    refundOnCreditFail: row.refund_on_credit_fail,
    creditOnDisconnect: row.credit_on_disconnect,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function findCasino(db: Knex, providerId: string, lock?: 'share' | 'update'): Promise<CasinoRecord | null> {
  let query = db<CasinoRow>('casinos').select(COLUMNS).where({ provider_id: providerId }).first();
  if (lock === 'share') query = query.forShare();
  if (lock === 'update') query = query.forUpdate();
  const row = (await query) as CasinoRow | undefined;
  return row ? toRecord(row) : null;
}

/** Newest first, like every casino listing of the platform. */
export async function listCasinos(db: Knex, page: number, limit: number): Promise<{ total: number; casinos: CasinoRecord[] }> {
  const [{ count }] = (await db('casinos').count<{ count: string }[]>({ count: '*' })) as { count: string }[];
  const rows = (await db('casinos')
    .select(COLUMNS)
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'provider_id', order: 'asc' }])
    .limit(limit)
    .offset((page - 1) * limit)) as CasinoRow[];
  return { total: Number(count), casinos: rows.map(toRecord) };
}

export async function insertCasino(db: Knex, c: CasinoWrite & { walletSecretEnc: string; launchKeyEnc: string }): Promise<CasinoRecord> {
  const [row] = (await db('casinos')
    .insert({
      provider_id: c.providerId,
      name: c.name,
      wallet_url: c.walletUrl,
      wallet_secret_enc: c.walletSecretEnc,
      launch_key_enc: c.launchKeyEnc,
      status: c.status,
      refund_on_credit_fail: c.refundOnCreditFail,
      credit_on_disconnect: c.creditOnDisconnect,
    })
    .returning(COLUMNS)) as CasinoRow[];
  return toRecord(row);
}

/** Replaces every field; a secret left null keeps the stored one. */
export async function updateCasino(db: Knex, c: CasinoWrite): Promise<CasinoRecord> {
  const [row] = (await db('casinos')
    .where({ provider_id: c.providerId })
    .update({
      name: c.name,
      wallet_url: c.walletUrl,
      status: c.status,
      refund_on_credit_fail: c.refundOnCreditFail,
      credit_on_disconnect: c.creditOnDisconnect,
      ...(c.walletSecretEnc !== null ? { wallet_secret_enc: c.walletSecretEnc } : {}),
      ...(c.launchKeyEnc !== null ? { launch_key_enc: c.launchKeyEnc } : {}),
      updated_at: db.fn.now(),
    })
    .returning(COLUMNS)) as CasinoRow[];
  return toRecord(row);
}

/**
 * A casino removed with every way in to it: its configs go with it (ON DELETE CASCADE), its casino
 * API tokens are revoked and its casino-scoped back-office accounts disabled, so that a casino made
 * again under the same id (CONTRACTS 5 lets a PUT do so) is not read by the old tenant's
 * credentials. Run in the request's transaction: all of it, with its audit entry, or none.
 * `accountsDisabled`: whose sessions must end.
 */
export async function deleteCasino(db: Knex, providerId: string): Promise<{ deleted: boolean; tokensRevoked: number; accountsDisabled: string[] }> {
  const deleted = await db('casinos').where({ provider_id: providerId }).delete();
  if (!deleted) return { deleted: false, tokensRevoked: 0, accountsDisabled: [] };
  const tokensRevoked = await db('casino_api_tokens').where({ provider_id: providerId }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
  const disabled = (await db('operator_accounts')
    .where({ scope_type: 'casino', scope_id: providerId, status: 'ACTIVE' })
    .update({ status: 'DISABLED', updated_at: db.fn.now() })
    .returning('account_id')) as { account_id: string }[];
  return { deleted: true, tokensRevoked, accountsDisabled: disabled.map((r) => r.account_id) };
}

/** A casino's free-rounds mode (issue 35), or null when there is no such casino. */
export async function findFreeRoundsMode(db: Knex, providerId: string): Promise<FreeRoundsMode | null> {
  const row = (await db('casinos').where({ provider_id: providerId }).first('free_rounds_mode')) as { free_rounds_mode: FreeRoundsMode } | undefined;
  return row?.free_rounds_mode ?? null;
}

/** Sets a casino's free-rounds mode; false when there is no such casino. */
export async function updateFreeRoundsMode(db: Knex, providerId: string, mode: FreeRoundsMode): Promise<boolean> {
  const changed = await db('casinos').where({ provider_id: providerId }).update({ free_rounds_mode: mode, updated_at: db.fn.now() });
  return changed > 0;
}
