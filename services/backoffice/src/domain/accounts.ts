import { randomBytes } from 'node:crypto';
import { AppError, appendAudit, hashToken, newId, type Knex, type OperatorRole, type OperatorScope } from '@relay/shared';
import * as accounts from '../data/accounts';
import type { AccountRecord } from '../data/accounts';
import { authorize, scopeFilter, type Caller } from './access';
import { audited, type RequestFacts } from './audit';
import type { BackofficeDeps } from './deps';
import { checkPasswordPolicy, hashPassword } from './passwords';

export interface NewAccount {
  email: string;
  displayName: string;
  password: string;
  role: OperatorRole;
  scope: OperatorScope;
}

/** A platform admin (or the ADMIN_TOKEN, for the first one) creates an account; the person enrols a second factor at first sign-in. */
export async function createAccount(deps: BackofficeDeps, facts: RequestFacts, input: NewAccount): Promise<AccountRecord> {
  authorize(facts.caller, 'accounts:manage');
  checkPasswordPolicy(input.password, input.email);
  await requireScopeTarget(deps, input.scope);
  const passwordHash = await hashPassword(input.password);
  return audited(deps, facts, 'account.create', async (trx) => {
    const created = await accounts.insertAccount(trx, { accountId: newId(), ...input, passwordHash });
    if (!created) throw new AppError('ACCOUNT_EXISTS', 'An account with this email exists');
    return { result: created, target: `account:${created.accountId}`, before: null, after: created };
  });
}

export async function listAccounts(deps: BackofficeDeps, caller: Caller, page: { limit: number; offset: number }) {
  authorize(caller, 'accounts:manage');
  return accounts.listAccounts(scopeFilter(accounts.accountsQuery(deps.db), caller.scope, {}), page);
}

export async function getAccount(deps: BackofficeDeps, caller: Caller, accountId: string): Promise<AccountRecord> {
  authorize(caller, 'accounts:manage');
  const account = await accounts.findAccount(deps.db, accountId);
  if (!account) throw accountNotFound(accountId);
  return account;
}

/** Disabling ends every live session of the account before answering. */
export async function setAccountStatus(deps: BackofficeDeps, facts: RequestFacts, accountId: string, status: 'ACTIVE' | 'DISABLED'): Promise<AccountRecord> {
  authorize(facts.caller, 'accounts:manage');
  const updated = await audited(deps, facts, status === 'DISABLED' ? 'account.disable' : 'account.enable', async (trx) => {
    const before = await accounts.findAccount(trx, accountId, 'update');
    if (!before) throw accountNotFound(accountId);
    const after = (await accounts.updateAccount(trx, accountId, { status }))!;
    return { result: after, target: `account:${accountId}`, before, after };
  });
  if (status === 'DISABLED') await deps.sessions.revokeAccount(accountId);
  return updated;
}

/**
 * A new display name, role or scope. A session carries the role and scope it was opened with, so
 * a change of either ends the account's sessions: the person signs in again under the new ones.
 */
export async function updateAccount(
  deps: BackofficeDeps,
  facts: RequestFacts,
  accountId: string,
  input: { displayName: string; role: OperatorRole; scope: OperatorScope },
): Promise<AccountRecord> {
  authorize(facts.caller, 'accounts:manage');
  await requireScopeTarget(deps, input.scope);
  let accessChanged = false;
  const updated = await audited(deps, facts, 'account.update', async (trx) => {
    const before = await accounts.findAccount(trx, accountId, 'update');
    if (!before) throw accountNotFound(accountId);
    const [was, will] = [accounts.scopeColumns(before.scope), accounts.scopeColumns(input.scope)];
    accessChanged = before.role !== input.role || was.scope_type !== will.scope_type || was.scope_id !== will.scope_id;
    const after = (await accounts.updateAccount(trx, accountId, { display_name: input.displayName, role: input.role, ...accounts.scopeColumns(input.scope) }))!;
    return { result: after, target: `account:${accountId}`, before, after };
  });
  if (accessChanged) await deps.sessions.revokeAccount(accountId);
  return updated;
}

/** The person enrols anew at the next sign-in; old codes and sessions stop working now. */
export async function resetSecondFactor(deps: BackofficeDeps, facts: RequestFacts, accountId: string): Promise<AccountRecord> {
  authorize(facts.caller, 'accounts:manage');
  const updated = await audited(deps, facts, 'account.reset-second-factor', async (trx) => {
    const before = await accounts.findAccount(trx, accountId, 'update');
    if (!before) throw accountNotFound(accountId);
    const after = (await accounts.updateAccount(trx, accountId, { totp_secret_enc: null, totp_enrolled_at: null, totp_last_step: null }))!;
    await accounts.replaceRecoveryCodes(trx, accountId, []);
    return { result: after, target: `account:${accountId}`, before, after };
  });
  await deps.sessions.revokeAccount(accountId);
  return updated;
}

/**
 * Ten single-use codes of 80 random bits each (10 bytes as 20 hex digits, in four groups of five to
 * read and type); only their SHA-256 is kept. (Until issue 36 they were 12 characters of a
 * lower-cased base64url secret: about 61 bits.)
 */
export function newRecoveryCodes(): { codes: string[]; hashes: string[] } {
  const codes = Array.from({ length: 10 }, () => randomBytes(10).toString('hex').match(/.{5}/g)!.join('-'));
  return { codes, hashes: codes.map(recoveryCodeHash) };
}

/** Typed with or without its dashes and spaces, in either case (earlier codes have none: they hash as before). */
export function recoveryCodeHash(code: string): string {
  return hashToken(`recovery:${code.trim().toLowerCase().replace(/[\s-]/g, '')}`);
}

/** A casino or studio scope must name a record that exists, so no account watches an empty name that a later casino might take. */
async function requireScopeTarget(deps: BackofficeDeps, scope: OperatorScope): Promise<void> {
  if (scope.type === 'casino' && !(await deps.db('casinos').where({ provider_id: scope.providerId }).first('provider_id'))) {
    throw new AppError('PROVIDER_NOT_FOUND', `No casino with providerId "${scope.providerId}"`);
  }
  if (scope.type === 'studio' && !(await deps.db('game_providers').where({ group_id: scope.groupId }).first('group_id'))) {
    throw new AppError('GROUP_NOT_FOUND', `No game provider with groupId "${scope.groupId}"`);
  }
}

function accountNotFound(accountId: string): AppError {
  return new AppError('ACCOUNT_NOT_FOUND', `No account "${accountId}"`);
}

/**
 * The first platform admin, made by the bootstrap command on the machine itself (no caller to
 * authorise: whoever can run it can read the database anyway). Refused once any platform admin
 * exists, so the command cannot become a back door; later accounts are made in the back office.
 */
export async function bootstrapPlatformAdmin(db: Knex, input: { email: string; displayName: string; password: string }): Promise<AccountRecord> {
  checkPasswordPolicy(input.password, input.email);
  const passwordHash = await hashPassword(input.password);
  return db.transaction(async (trx) => {
    await trx.raw('LOCK TABLE operator_accounts IN SHARE ROW EXCLUSIVE MODE');
    if (await trx('operator_accounts').where({ role: 'admin', scope_type: 'platform' }).first('account_id')) {
      throw new AppError('ACCOUNT_EXISTS', 'A platform admin exists already; create further accounts in the back office');
    }
    const created = await accounts.insertAccount(trx, { accountId: newId(), ...input, passwordHash, role: 'admin', scope: { type: 'platform' } });
    if (!created) throw new AppError('ACCOUNT_EXISTS', 'An account with this email exists');
    await appendAudit(trx, {
      actorType: 'system',
      actorId: 'accounts:bootstrap',
      method: 'CLI',
      route: 'npm run accounts:bootstrap',
      action: 'account.create',
      target: `account:${created.accountId}`,
      before: null,
      after: created,
    });
    return created;
  });
}
