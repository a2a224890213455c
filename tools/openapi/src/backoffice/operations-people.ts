import { z } from 'zod';
import { accountBody, accountChange, accountPath, auditFilter, AUDIT_CSV_COLUMNS, casinoPath, pagination, secondFactorBody, signInBody, tokenBody, tokenPath } from '@relay/backoffice';
import * as ex from './examples';
import type { BackofficeOperation } from './operation';
import * as res from './responses';

/** Sign-in, the session, accounts, casino API tokens, the audit trail and the directory. */

const ANYONE = 'every role in every scope, casino API tokens and the `ADMIN_TOKEN`; each sees only its own scope.';
const PEOPLE_PARAMS: Record<string, string> = {
  accountId: 'The account (a UUID).',
  providerId: 'The casino.',
  tokenId: 'The casino API token (a UUID), as listed.',
  page: 'Page number from 1 (default 1).',
  limit: 'Rows per page, 1 to 500 (default 100).',
};
const AUDIT_PARAMS: Record<string, string> = {
  actorId: 'Only entries by this account id, token id or `ADMIN_TOKEN`.',
  actorType: 'Only entries by this kind of caller.',
  action: 'Only this action, e.g. `account.create`, `casino-token.issue`, `reconciliation.acknowledge`.',
  target: 'Only entries about this record, e.g. `account/<accountId>`.',
  from: 'At or after this instant.',
  to: 'At or before this instant.',
  page: 'Page number from 1 (default 1).',
  limit: 'Rows per page, 1 to 500 (default 100).',
};
const SET_COOKIE = {
  'Set-Cookie': {
    description:
      '`relay_bo_session` (HttpOnly, SameSite=Strict, Secure outside local runs): the session; `relay_bo_csrf` (readable by the page, SameSite=Strict): the CSRF token to echo in `X-CSRF-Token`.',
    schema: { type: 'string' },
  },
};

export const peopleOperations: BackofficeOperation[] = [
  {
    method: 'post', path: '/backoffice/v1/auth/sign-in', operationId: 'signIn', tag: 'Sign-in', access: 'public', who: 'anyone (this is where a person starts).',
    summary: 'Sign in, step one: the password',
    description: 'A wrong password, an unknown email and a disabled account get the same `401` in about the same time. An account without a second factor gets a new TOTP secret to enrol (`next: "enrol"`, with a QR code and otpauth URI); otherwise `next: "totp"`. Failed attempts are limited per email and per client address (`429` with `Retry-After`).',
    body: { schema: signInBody, example: { email: 'grace@demo-casino.example', password: 'EXAMPLE-long-unusual-passphrase' } },
    ok: { message: 'Password accepted; send the code of your authenticator app', data: res.signInStep, example: ex.signInStep },
    errors: { 401: ['INVALID_CREDENTIALS'] },
  },
  {
    method: 'post', path: '/backoffice/v1/auth/second-factor', operationId: 'signInSecondFactor', tag: 'Sign-in', access: 'public', who: 'anyone holding a challenge from step one.',
    summary: 'Sign in, step two: the TOTP code (or a recovery code)',
    description: 'Send the `challenge` of step one with either `code` (the authenticator app\'s six digits; a code works once) or `recoveryCode`. The answer sets the session cookies. At enrolment it carries ten recovery codes, shown only in this answer.',
    body: { schema: secondFactorBody, description: 'Either `code` or `recoveryCode`, never both.', example: { challenge: 'EXAMPLE-challenge-not-a-real-one', code: '492039' } },
    ok: { message: 'Signed in', data: res.signedIn, example: ex.signedIn, headers: SET_COOKIE },
    errors: { 401: ['INVALID_SECOND_FACTOR'] },
  },
  {
    method: 'get', path: '/backoffice/v1/session', operationId: 'whoAmI', tag: 'Sign-in', access: 'read', who: ANYONE,
    summary: 'Who is calling', description: 'The caller\'s kind, role and scope, and the signed-in account.',
    ok: { message: 'Signed in', data: res.whoAmI, example: ex.whoAmI },
  },
  {
    method: 'delete', path: '/backoffice/v1/session', operationId: 'signOut', tag: 'Sign-in', access: 'session', who: 'a signed-in person (a token has no session: `400`).',
    summary: 'Sign out', description: 'Ends the session at once on every gateway and clears the cookies.',
    ok: { message: 'Signed out', data: null, example: null, headers: SET_COOKIE },
  },
  {
    method: 'post', path: '/backoffice/v1/accounts', operationId: 'createAccount', tag: 'Accounts', access: 'write', permission: 'accounts:manage',
    summary: 'Create an account',
    description: 'One role (`admin`, `support`, `finance`) in one scope (the platform, one casino or one game provider). The password needs at least 12 characters and must not be a common one (`WEAK_PASSWORD`); it is stored as an argon2id hash and never shown again. The person enrols a second factor at first sign-in.',
    body: { schema: accountBody, example: ex.accountBody },
    ok: { status: 201, message: 'Account created; the person enrols a second factor at first sign-in', data: res.account, example: { ...ex.account, secondFactorEnrolled: false } },
    errors: { 400: ['WEAK_PASSWORD'], 404: ['PROVIDER_NOT_FOUND', 'GROUP_NOT_FOUND'], 409: ['ACCOUNT_EXISTS'] },
  },
  {
    method: 'get', path: '/backoffice/v1/accounts', operationId: 'listAccounts', tag: 'Accounts', access: 'read', parameterText: PEOPLE_PARAMS, permission: 'accounts:manage',
    summary: 'List accounts', description: 'Newest first, paged.', query: pagination,
    ok: { message: 'Accounts fetched successfully', data: z.array(res.account), example: [ex.account], meta: 'page' },
  },
  {
    method: 'get', path: '/backoffice/v1/accounts/{accountId}', operationId: 'getAccount', tag: 'Accounts', access: 'read', parameterText: PEOPLE_PARAMS, permission: 'accounts:manage',
    summary: 'One account', description: 'Without any credential.', path_: accountPath,
    ok: { message: 'Account fetched successfully', data: res.account, example: ex.account }, errors: { 404: ['ACCOUNT_NOT_FOUND'] },
  },
  {
    method: 'put', path: '/backoffice/v1/accounts/{accountId}', operationId: 'updateAccount', tag: 'Accounts', access: 'write', parameterText: PEOPLE_PARAMS, permission: 'accounts:manage',
    summary: 'Change the name, role or scope of an account', description: 'A change of role or scope ends the account\'s live sessions at once. Audited with before and after.',
    path_: accountPath, body: { schema: accountChange, example: { displayName: 'Grace Finance', role: 'finance', scope: { type: 'casino', providerId: 'demo-casino' } } },
    ok: { message: 'Account saved; a change of role or scope ended its sessions', data: res.account, example: { ...ex.account, role: 'finance', displayName: 'Grace Finance' } },
    errors: { 404: ['ACCOUNT_NOT_FOUND', 'PROVIDER_NOT_FOUND', 'GROUP_NOT_FOUND'] },
  },
  {
    method: 'post', path: '/backoffice/v1/accounts/{accountId}/disable', operationId: 'disableAccount', tag: 'Accounts', access: 'write', parameterText: PEOPLE_PARAMS, permission: 'accounts:manage',
    summary: 'Disable an account', description: 'Its sessions end at once; sign-in is refused like a wrong password.', path_: accountPath,
    ok: { message: 'Account disabled; its sessions have ended', data: res.account, example: { ...ex.account, status: 'DISABLED' } }, errors: { 404: ['ACCOUNT_NOT_FOUND'] },
  },
  {
    method: 'post', path: '/backoffice/v1/accounts/{accountId}/enable', operationId: 'enableAccount', tag: 'Accounts', access: 'write', parameterText: PEOPLE_PARAMS, permission: 'accounts:manage',
    summary: 'Enable an account again', description: 'The person signs in as before.', path_: accountPath,
    ok: { message: 'Account enabled', data: res.account, example: ex.account }, errors: { 404: ['ACCOUNT_NOT_FOUND'] },
  },
  {
    method: 'post', path: '/backoffice/v1/accounts/{accountId}/reset-second-factor', operationId: 'resetSecondFactor', tag: 'Accounts', access: 'write', parameterText: PEOPLE_PARAMS, permission: 'accounts:manage',
    summary: 'Reset the second factor', description: 'Drops the TOTP secret and recovery codes and ends the sessions; the person enrols again at next sign-in.', path_: accountPath,
    ok: { message: 'Second factor reset; the person enrols again at next sign-in', data: res.account, example: { ...ex.account, secondFactorEnrolled: false } }, errors: { 404: ['ACCOUNT_NOT_FOUND'] },
  },
  {
    method: 'post', path: '/backoffice/v1/casinos/{providerId}/api-tokens', operationId: 'issueCasinoApiToken', tag: 'Casino API tokens', access: 'write', parameterText: PEOPLE_PARAMS, permission: 'casino-tokens:manage',
    summary: 'Issue a casino API token',
    description: 'For a casino\'s own systems (reconciliation jobs): the same reads as a casino `support` account, never a write. The token is in this answer only and stored as a hash; hand it over a safe channel.',
    path_: casinoPath, body: { schema: tokenBody, example: { name: 'nightly reconciliation job' } },
    ok: { status: 201, message: 'Casino API token created; it is shown only in this response', data: res.issuedCasinoToken, example: ex.issuedCasinoToken }, errors: { 404: ['PROVIDER_NOT_FOUND'] },
  },
  {
    method: 'get', path: '/backoffice/v1/casinos/{providerId}/api-tokens', operationId: 'listCasinoApiTokens', tag: 'Casino API tokens', access: 'read', parameterText: PEOPLE_PARAMS, permission: 'casino-tokens:manage',
    summary: "A casino's API tokens", description: 'By id, name and dates; never the token.', path_: casinoPath,
    ok: { message: 'Casino API tokens fetched successfully', data: z.array(res.casinoToken), example: [ex.casinoToken] },
  },
  {
    method: 'delete', path: '/backoffice/v1/casinos/{providerId}/api-tokens/{tokenId}', operationId: 'revokeCasinoApiToken', tag: 'Casino API tokens', access: 'write', parameterText: PEOPLE_PARAMS, permission: 'casino-tokens:manage',
    summary: 'Revoke a casino API token', description: 'Refused by every gateway within one second.', path_: tokenPath,
    ok: { message: 'Casino API token revoked', data: null, example: null }, errors: { 404: ['TOKEN_NOT_FOUND'] },
  },
  {
    method: 'get', path: '/backoffice/v1/audit', operationId: 'listAuditTrail', tag: 'Audit trail', access: 'read', permission: 'audit:read',
    summary: 'Read the audit trail',
    description: 'Every write by a person or a token through the admin API or the back office: who, when, from which address, which route and request, the record before and after (secrets redacted). Newest first, paged, filtered. No route changes or deletes an entry.',
    query: pagination.extend(auditFilter.shape), parameterText: AUDIT_PARAMS,
    ok: { message: 'Audit trail fetched successfully', data: z.array(res.auditEntry), example: [ex.auditEntry], meta: 'page' },
  },
  {
    method: 'get', path: '/backoffice/v1/audit/verify', operationId: 'verifyAuditTrail', tag: 'Audit trail', access: 'read', permission: 'audit:read',
    summary: 'Verify the hash chain', description: 'Walks every entry: an edited entry no longer matches its hash, a deleted one breaks the link of the next.',
    ok: { message: 'The audit chain is intact', data: res.chainVerdict, example: ex.chainVerdict },
  },
  {
    method: 'get', path: '/backoffice/v1/audit.csv', operationId: 'exportAuditTrail', tag: 'Audit trail', access: 'read', permission: 'audit:read',
    summary: 'Export the audit trail as CSV', description: 'The same filters as the list, every matching entry, streamed; `before` and `after` as JSON text.',
    query: auditFilter, parameterText: AUDIT_PARAMS,
    csv: { description: 'A header row, then one line per entry.', example: `${AUDIT_CSV_COLUMNS.join(',')}\n` },
  },
  {
    method: 'get', path: '/backoffice/v1/casinos', operationId: 'listCasinosInScope', tag: 'Directory', access: 'read', permission: 'directory:read',
    summary: 'Casinos in scope', description: 'Names and status only: a casino account sees its own casino, a studio account none.',
    ok: { message: 'Casinos fetched successfully', data: z.array(res.casinoListed), example: [ex.casinoListed] },
  },
  {
    method: 'get', path: '/backoffice/v1/game-providers', operationId: 'listGameProvidersInScope', tag: 'Directory', access: 'read', permission: 'directory:read',
    summary: 'Game providers in scope', description: 'Names and status only: a studio account sees its own game provider, a casino account none.',
    ok: { message: 'Game providers fetched successfully', data: z.array(res.gameProviderListed), example: [ex.gameProviderListed] },
  },
];
