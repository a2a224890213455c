/**
 * Switches that make the sandbox break ONE rule of the casino wallet protocol each, the way real
 * casino wallets get it wrong. They exist so the certification kit (tools/certify) can prove that
 * it catches each mistake: a sandbox started with one switch must fail exactly the kit's check
 * that names the rule. Never used by the demo or the platform tests.
 */
export const SANDBOX_BREAKS = {
  'no-signature-check': 'accepts any X-Relay-Signature (the timestamp age is still checked)',
  'no-timestamp-check': 'accepts a correctly signed request whatever the age of its timestamp',
  'non-idempotent-debit': 'applies every debit, even a repeated transactionId',
  'non-idempotent-credit': 'applies every credit, even a repeated transactionId',
  'debit-race': 'checks a debit transactionId, waits on a slow store, then applies without re-checking: two identical debits at once both move money',
  'insufficient-funds-5xx': 'answers a debit above the balance with 500 instead of a 4xx',
  'float-balance': 'keeps balances in binary floating point, so 0.10 steps leave rounding error',
  'refuse-zero-credit': 'refuses a credit of 0 (BET_LOST) with 400',
  'accept-unknown-players': 'opens an account with balance 0 for any unknown playerId',
  'accept-expired-tokens': 'accepts any walletToken for a known player',
  'round-ended-fails': 'answers round-ended with 500',
  'unreadable-balance': 'answers the balance operation with a balance that is not a number ("100,00 EUR")',
  'text-content-type': 'answers JSON with Content-Type text/plain',
  'no-keep-alive': 'closes the connection after every answer',
} as const;

export type SandboxBreak = keyof typeof SANDBOX_BREAKS;

export function isSandboxBreak(value: string): value is SandboxBreak {
  return Object.prototype.hasOwnProperty.call(SANDBOX_BREAKS, value);
}

/** `"a,b"` (SANDBOX_BREAK or --break) to switches; throws naming an unknown one and the known ones. */
export function parseSandboxBreaks(text: string | undefined): SandboxBreak[] {
  const names = (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !isSandboxBreak(n));
  if (unknown.length > 0) throw new Error(`unknown sandbox break ${unknown.join(', ')}; known: ${Object.keys(SANDBOX_BREAKS).join(', ')}`);
  return [...new Set(names as SandboxBreak[])];
}
