import { z } from 'zod';
import { timestamp } from '../schema';

/**
 * What the back-office routes answer (services/backoffice/src/routes/present*.ts and the domain's
 * present functions list each field by hand). The contract tests hold every answer against these,
 * so a field added there without a line here fails the test that received it.
 */
const role = z.enum(['admin', 'support', 'finance']);

export const operatorScope = z
  .union([
    z.strictObject({ type: z.literal('platform') }),
    z.strictObject({ type: z.literal('casino'), providerId: z.string() }),
    z.strictObject({ type: z.literal('studio'), groupId: z.string() }),
  ])
  .meta({ id: 'OperatorScope', description: 'Whose records the account sees: the whole platform, one casino (`providerId`) or one game provider (`groupId`).' });

export const account = z
  .strictObject({
    accountId: z.string(),
    email: z.string(),
    displayName: z.string(),
    role,
    scope: operatorScope,
    status: z.enum(['ACTIVE', 'DISABLED']),
    secondFactorEnrolled: z.boolean().meta({ description: 'False until the person confirms an authenticator app at sign-in (again after a reset).' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'OperatorAccount', description: 'Never carries the password hash, the TOTP secret or recovery codes.' });

export const signInStep = z
  .union([
    z.strictObject({ challenge: z.string(), next: z.literal('totp') }),
    z.strictObject({
      challenge: z.string(),
      next: z.literal('enrol'),
      enrolment: z
        .strictObject({
          secret: z.string().meta({ description: 'The TOTP secret (base32), shown only in this answer.' }),
          otpauthUri: z.string(),
          qrCodeSvg: z.string(),
          qrCodeDataUrl: z.string(),
        })
        .meta({ description: 'First sign-in (or after a reset): scan the QR code, then send its first code.' }),
    }),
  ])
  .meta({ id: 'SignInStep', description: '`challenge` goes with the code to `/auth/second-factor`; it is good for one use, briefly.' });

export const signedIn = z
  .strictObject({
    account,
    csrfToken: z.string().meta({ description: 'Echo it in `X-CSRF-Token` on every state-changing request (also in the `relay_bo_csrf` cookie).' }),
    expiresAt: timestamp.meta({ description: 'The absolute end of the session; it also ends after the idle time-out.' }),
    recoveryCodes: z.array(z.string()).optional().meta({ description: 'Only at enrolment: ten single-use codes, shown once.' }),
  })
  .meta({ id: 'SignedIn' });

export const whoAmI = z
  .strictObject({
    actorType: z.enum(['admin-token', 'operator', 'casino-token']),
    role,
    scope: operatorScope,
    account: account.nullable().meta({ description: 'The signed-in person; null for a token.' }),
    idleTimeoutSeconds: z.number().int(),
  })
  .meta({ id: 'BackofficeCaller' });

export const casinoToken = z
  .strictObject({ tokenId: z.string(), providerId: z.string(), name: z.string(), createdBy: z.string(), createdAt: timestamp, revokedAt: timestamp.nullable() })
  .meta({ id: 'CasinoApiToken' });

export const issuedCasinoToken = z
  .strictObject({
    ...casinoToken.shape,
    token: z.string().meta({ description: 'The bearer token (`cat_...`). Shown only in this answer; stored only as a hash.' }),
  })
  .meta({ id: 'IssuedCasinoApiToken' });

export const auditEntry = z
  .strictObject({
    id: z.string(),
    occurredAt: timestamp,
    actorType: z.enum(['admin-token', 'operator', 'casino-token', 'system']),
    actorId: z.string(),
    actorLabel: z.string().nullable(),
    clientAddress: z.string().nullable(),
    method: z.string(),
    route: z.string(),
    requestId: z.string().nullable(),
    action: z.string(),
    target: z.string().nullable(),
    before: z.unknown().meta({ description: 'The record before the change, secrets replaced by `[REDACTED]`; null for a creation.' }),
    after: z.unknown().meta({ description: 'The record after the change, secrets replaced.' }),
    prevHash: z.string(),
    hash: z.string().meta({ description: 'SHA-256 over the previous hash and this entry: an edited or deleted entry breaks the chain.' }),
  })
  .meta({ id: 'AuditEntry' });

export const chainVerdict = z
  .strictObject({
    valid: z.boolean(),
    rowsChecked: z.number().int(),
    brokenAt: z.strictObject({ id: z.string(), reason: z.enum(['edited', 'link']) }).nullable(),
    head: z.strictObject({ id: z.string(), hash: z.string() }).nullable().meta({ description: 'The last entry checked: keep it elsewhere to notice entries cut off the end.' }),
  })
  .meta({ id: 'AuditChainVerdict' });

const directoryStatus = z.string().meta({ description: '`ACTIVE` or `INACTIVE`.' });
export const casinoListed = z.strictObject({ providerId: z.string(), name: z.string(), status: directoryStatus, createdAt: timestamp }).meta({ id: 'CasinoListed' });
export const gameProviderListed = z.strictObject({ groupId: z.string(), name: z.string(), status: directoryStatus, createdAt: timestamp }).meta({ id: 'GameProviderListed' });
