import type { Knex, OperatorRole, OperatorScope } from '@relay/shared';

export interface AccountRecord {
  accountId: string;
  email: string;
  displayName: string;
  role: OperatorRole;
  scope: OperatorScope;
  status: 'ACTIVE' | 'DISABLED';
  secondFactorEnrolled: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** The secret columns, read only by sign-in. */
export interface AccountCredentials {
  passwordHash: string;
  totpSecretEnc: string | null;
  totpLastStep: number | null;
}

const COLUMNS = ['account_id', 'email', 'display_name', 'role', 'scope_type', 'scope_id', 'status', 'totp_enrolled_at', 'created_at', 'updated_at'];

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function toAccount(row: Record<string, any>): AccountRecord {
  const scope: OperatorScope =
    row.scope_type === 'casino' ? { type: 'casino', providerId: row.scope_id } : row.scope_type === 'studio' ? { type: 'studio', groupId: row.scope_id } : { type: 'platform' };
  return {
    accountId: row.account_id,
    email: row.email,
    displayName: row.display_name,
    role: row.role,
    scope,
    status: row.status,
    secondFactorEnrolled: row.totp_enrolled_at !== null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function scopeColumns(scope: OperatorScope): { scope_type: string; scope_id: string | null } {
  return { scope_type: scope.type, scope_id: scope.type === 'casino' ? scope.providerId : scope.type === 'studio' ? scope.groupId : null };
}

export async function insertAccount(
  db: Knex,
  input: { accountId: string; email: string; displayName: string; passwordHash: string; role: OperatorRole; scope: OperatorScope },
): Promise<AccountRecord | null> {
  const rows = await db('operator_accounts')
    .insert({
      account_id: input.accountId,
      email: input.email.trim(),
      email_normalized: normalizeEmail(input.email),
      display_name: input.displayName,
      password_hash: input.passwordHash,
      role: input.role,
      ...scopeColumns(input.scope),
    })
    .onConflict('email_normalized')
    .ignore()
    .returning(COLUMNS);
  return rows[0] ? toAccount(rows[0]) : null;
}

export async function findAccount(db: Knex, accountId: string, lock?: 'update'): Promise<AccountRecord | null> {
  const query = db('operator_accounts').where({ account_id: accountId }).first(COLUMNS);
  const row = await (lock ? query.forUpdate() : query);
  return row ? toAccount(row) : null;
}

export async function findByEmail(db: Knex, email: string): Promise<(AccountRecord & AccountCredentials) | null> {
  const row = await db('operator_accounts')
    .where({ email_normalized: normalizeEmail(email) })
    .first([...COLUMNS, 'password_hash', 'totp_secret_enc', 'totp_last_step']);
  return row ? { ...toAccount(row), passwordHash: row.password_hash, totpSecretEnc: row.totp_secret_enc, totpLastStep: row.totp_last_step === null ? null : Number(row.totp_last_step) } : null;
}

export async function findCredentials(db: Knex, accountId: string): Promise<(AccountRecord & AccountCredentials) | null> {
  const row = await db('operator_accounts')
    .where({ account_id: accountId })
    .forUpdate()
    .first([...COLUMNS, 'password_hash', 'totp_secret_enc', 'totp_last_step']);
  return row ? { ...toAccount(row), passwordHash: row.password_hash, totpSecretEnc: row.totp_secret_enc, totpLastStep: row.totp_last_step === null ? null : Number(row.totp_last_step) } : null;
}

export async function listAccounts(query: Knex.QueryBuilder, page: { limit: number; offset: number }): Promise<{ total: number; accounts: AccountRecord[] }> {
  const [{ count }] = await query.clone().count<{ count: string }[]>('* as count');
  const rows = await query.clone().orderBy('created_at').orderBy('account_id').limit(page.limit).offset(page.offset).select(COLUMNS);
  return { total: Number(count), accounts: rows.map(toAccount) };
}

export async function updateAccount(db: Knex, accountId: string, changes: Record<string, unknown>): Promise<AccountRecord | null> {
  const rows = await db('operator_accounts').where({ account_id: accountId }).update({ ...changes, updated_at: db.fn.now() }).returning(COLUMNS);
  return rows[0] ? toAccount(rows[0]) : null;
}

/** Accepting a TOTP step moves totp_last_step forward; a step not after it is a replay and changes nothing. */
export async function acceptTotpStep(db: Knex, accountId: string, step: number, enrolSecretEnc?: string): Promise<boolean> {
  const query = db('operator_accounts')
    .where({ account_id: accountId })
    .andWhere((q) => q.whereNull('totp_last_step').orWhere('totp_last_step', '<', step));
  const changes: Record<string, unknown> = { totp_last_step: step, updated_at: db.fn.now() };
  if (enrolSecretEnc) Object.assign(changes, { totp_secret_enc: enrolSecretEnc, totp_enrolled_at: db.fn.now() });
  else query.whereNotNull('totp_secret_enc');
  return (await query.update(changes)) === 1;
}

export async function replaceRecoveryCodes(db: Knex, accountId: string, hashes: string[]): Promise<void> {
  await db('operator_recovery_codes').where({ account_id: accountId }).delete();
  if (hashes.length > 0) await db('operator_recovery_codes').insert(hashes.map((code_hash) => ({ account_id: accountId, code_hash })));
}

export async function useRecoveryCode(db: Knex, accountId: string, codeHash: string): Promise<boolean> {
  return (await db('operator_recovery_codes').where({ account_id: accountId, code_hash: codeHash }).whereNull('used_at').update({ used_at: db.fn.now() })) === 1;
}

export function accountsQuery(db: Knex): Knex.QueryBuilder {
  return db('operator_accounts');
}
