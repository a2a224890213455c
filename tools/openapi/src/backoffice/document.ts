import { ApiDocument } from '../document';
import { VERSION } from '../version';
import { backoffice } from './operation';
import { freeRoundOperations } from './operations-free-rounds';
import { moneyOperations } from './operations-money';
import { peopleOperations } from './operations-people';

const DESCRIPTION = `The back office: where the platform team's, each casino's and each game provider's support and
finance staff sign in as themselves, and what their systems read. Every answer is filtered by the caller's
**scope** before anything is read: the \`platform\`, one casino (\`providerId\`) or one game provider
(\`groupId\`); a record of another tenant is answered like a missing one. Within the scope, the **role**
(\`admin\`, \`support\`, \`finance\`) decides what may be called; each operation says who may.

**Three ways to authenticate** (the gateway checks them; the back office sees only who the caller is):

1. **A person's session**: \`POST /backoffice/v1/auth/sign-in\` with email and password, then
   \`POST /backoffice/v1/auth/second-factor\` with the authenticator code. The answer sets the \`relay_bo_session\`
   cookie (HttpOnly, SameSite=Strict) and gives a \`csrfToken\`; every \`POST\`, \`PUT\` and \`DELETE\` must echo it
   in \`X-CSRF-Token\`. A session ends after \`BACKOFFICE_SESSION_IDLE_SECONDS\` unused, after
   \`BACKOFFICE_SESSION_MAX_SECONDS\` in all, and at once on sign-out or when the account is disabled.
2. **A casino API token** (\`Authorization: Bearer cat_...\`), issued by platform admins for a casino's own
   jobs: the reads of a casino \`support\` account; its only writes are the casino's free-round awards.
3. **The \`ADMIN_TOKEN\`** (\`Authorization: Bearer ...\`): a platform admin, for bootstrapping the first account.

Answers are envelopes \`{"statusCode", "message", "data", "meta"?}\`; errors
\`{"statusCode", "message", "error", "data", "details"?}\`. Money is a JSON number with at most 2 decimals, summed
exactly. Lists walked by cursor carry \`meta.nextCursor\` and exact \`meta.totals\`; paged lists
\`meta.total\`, \`page\` and \`limit\`. Every list has a CSV export (\`.csv\`, \`text/csv\`) with the same filters
and scope, streamed. Every write is recorded in the audit trail, secrets redacted. A password, TOTP secret,
recovery code, session id or token appears only in the answer that creates it.`;

/** The back office's API reference, built from services/backoffice's route schemas. */
export function backofficeDocument(): Record<string, unknown> {
  const doc = new ApiDocument(
    { title: 'Game Relay: back office API', version: VERSION, description: DESCRIPTION },
    {
      servers: [{ url: '/', description: 'The gateway this reference is served from' }],
      securitySchemes: {
        operatorSession: { type: 'apiKey', in: 'cookie', name: 'relay_bo_session', description: 'The session cookie set by the second sign-in step.' },
        csrfToken: { type: 'apiKey', in: 'header', name: 'X-CSRF-Token', description: "The session's CSRF token (`csrfToken` of the sign-in answer, also the `relay_bo_csrf` cookie); required with the session cookie on every write." },
        casinoApiToken: { type: 'http', scheme: 'bearer', description: "A casino API token (`cat_...`): the reads of a casino `support` account, and the casino's free-round awards." },
        adminToken: { type: 'http', scheme: 'bearer', description: 'The platform admin token (`ADMIN_TOKEN`): a platform `admin`.' },
      },
      security: [{ operatorSession: [] }, { casinoApiToken: [] }, { adminToken: [] }],
      tags: [
        { name: 'Sign-in', description: 'Password, second factor, the session.' },
        { name: 'Accounts', description: 'Named operator accounts, one role in one scope.' },
        { name: 'Casino API tokens', description: "Read access for a casino's own systems." },
        { name: 'Audit trail', description: 'Every write, append-only, hash-chained.' },
        { name: 'Directory', description: 'Casinos and game providers in scope.' },
        { name: 'Search', description: 'Rounds and transactions across the scope.' },
        { name: 'Stories', description: "A round's or a transaction's whole story." },
        { name: 'Reconciliation', description: 'What the ledger shows needs a person.' },
        { name: 'Flagged wins', description: 'Large payouts and multipliers, for review.' },
        { name: 'Reports', description: 'Bets, payouts and GGR.' },
        { name: 'Free rounds', description: "Awards of free rounds to a casino's players: created, read, listed and cancelled." },
      ],
    },
  );
  for (const op of [...peopleOperations, ...moneyOperations, ...freeRoundOperations]) doc.add(backoffice(op));
  return doc.toJSON();
}
