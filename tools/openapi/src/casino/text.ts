/** The prose of the casino wallet protocol document. */

export const CASINO_DESCRIPTION = (s: { secret: string; timestamp: number; body: string; signature: string }) => `The calls every casino answers so that games can be played with its players' money. The relay makes
them, never a game: \`POST {walletUrl}/{operation}\` with a JSON body. The casino registers its \`walletUrl\`
with the platform team and receives a \`walletSecret\` (to check signatures) and a \`launchKey\` (to seal
launch tokens), each shown once.

## Signature

Every call carries \`X-Relay-Timestamp\` (Unix seconds) and \`X-Relay-Signature\`:
\`v1=\` + lowercase hex HMAC-SHA256 keyed with the wallet secret, over the timestamp, a \`.\` and the exact
body bytes. Verify the bytes you received (before parsing), compare in constant time, and refuse a
timestamp more than 5 minutes away from your clock.

Worked example. Wallet secret \`${s.secret}\`, timestamp \`${s.timestamp}\`, body (the exact bytes):

\`\`\`
${s.body}
\`\`\`

The HMAC input is \`${s.timestamp}.\` followed by those bytes, and the header is

\`\`\`
X-Relay-Signature: ${s.signature}
\`\`\`

(\`printf '%s' '${s.timestamp}.<body>' | openssl dgst -sha256 -hmac '<secret>'\` gives the same hex.)

## Idempotency: the casino's duty

\`(providerId, transactionId)\` is the idempotency key of \`debit\` and \`credit\`. A repeated debit or credit
with a key already processed returns the first result and moves no money, whatever the new body says.
The relay repeats a call with the same \`transactionId\` whenever the outcome was unknown (a time-out, a lost
connection, a game repeating its request), and \`credit\` arrives with \`isRetry: true\` when it comes through
the game's retry route, possibly days later. Without this rule a repeat would pay twice.

## Time-outs

The relay waits at most \`CASINO_TIMEOUT_MS\` (10 seconds by default) for an answer. Past it the game
receives \`408 INTEGRATION_TIMED_OUT\` and will repeat the same \`transactionId\`; the idempotency rule
resolves whether the first attempt moved money.

## How answers map to what the game receives

| casino answer | balance (and session validation) | debit | credit | round-ended |
|---|---|---|---|---|
| \`4xx\` with \`{"error":"TOKEN_EXPIRED"}\`, or status 401 | \`403 AUTHENTICATION_TOKEN_EXPIRED\` | same | same | same |
| other \`4xx\` (e.g. \`INSUFFICIENT_FUNDS\`) | \`502 PROVIDER_API_FAILURE\` | \`400 FUND_WITHDRAW_FAILED\` | \`502 PROVIDER_API_FAILURE\` | \`403 AUTHENTICATION_TOKEN_EXPIRED\` for 403, else \`502 PROVIDER_API_FAILURE\` |
| \`5xx\` | \`502 PROVIDER_API_FAILURE\` | \`500 CASHOUT_FAILED\` | \`502 PROVIDER_API_FAILURE\` | \`502 PROVIDER_API_FAILURE\` |
| \`200\` without a usable non-negative \`balance\`, or not JSON | \`502 INVALID_PROVIDER_RESPONSE\` | same | same | any \`2xx\` is success |
| no answer within the time-out | \`408 INTEGRATION_TIMED_OUT\` | same | same | same |
| connection refused or reset | \`502 PROVIDER_API_FAILURE\` | same | same | same |

A refused debit opens no round. A failed credit leaves the transaction \`FAILED\`: the player is owed the
money until a credit with that \`transactionId\` succeeds, so answer repeats of it correctly.`;

interface OperationText {
  summary: string;
  description: string;
  refused: string;
  refusalExample: string;
  failed: string;
}

export const OPERATION_TEXT: Record<'balance' | 'debit' | 'credit' | 'round-ended', OperationText> = {
  balance: {
    summary: "The player's balance",
    description: 'Called when a game validates a session and when it reads the balance. Moves no money.',
    refused: '`TOKEN_EXPIRED` (or status 401): the player must relaunch. Anything else reaches the game as `502 PROVIDER_API_FAILURE`.',
    refusalExample: 'TOKEN_EXPIRED',
    failed: 'Reaches the game as `502 PROVIDER_API_FAILURE`.',
  },
  debit: {
    summary: 'Take a bet',
    description: 'Withdraw `amount` for the bet `transactionId` of round `roundId`. Idempotent on `(providerId, transactionId)`.',
    refused: 'The debit is refused (e.g. `INSUFFICIENT_FUNDS`): the game receives `400 FUND_WITHDRAW_FAILED` and no round opens. `TOKEN_EXPIRED` (or 401): `403 AUTHENTICATION_TOKEN_EXPIRED`.',
    refusalExample: 'INSUFFICIENT_FUNDS',
    failed: 'The game receives `500 CASHOUT_FAILED`; it may later send a refund credit with reason `CASHOUT_FAILED` when the casino asked for refunds on credit failure.',
  },
  credit: {
    summary: 'Pay a result',
    description: `Deposit \`amount\` (0 for a loss: every bet is settled by one credit). \`reason\` says why; \`previousTransactionId\`
is the bet's \`transactionId\` for every reason that settles a bet; \`isRetry\` is true when the game repeats a
credit through its retry route. Idempotent on \`(providerId, transactionId)\`.`,
    refused: 'The game receives `502 PROVIDER_API_FAILURE` and must schedule a retry: the player is owed the money. `TOKEN_EXPIRED` (or 401): `403 AUTHENTICATION_TOKEN_EXPIRED`.',
    refusalExample: 'TOKEN_EXPIRED',
    failed: 'The game receives `502 PROVIDER_API_FAILURE` and schedules a retry of the same `transactionId`.',
  },
  'round-ended': {
    summary: 'A round ended',
    description: 'Sent when the game declares a round over, to each casino it names (once per casino and call). No money moves; reply quickly, any 2xx will do.',
    refused: '403: the game receives `403 AUTHENTICATION_TOKEN_EXPIRED`; any other 4xx `502 PROVIDER_API_FAILURE`.',
    refusalExample: 'UNKNOWN_ROUND',
    failed: 'The game receives `502 PROVIDER_API_FAILURE`.',
  },
};
