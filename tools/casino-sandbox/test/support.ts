import { signCasinoRequest, type CasinoWallet } from '@relay/shared';

/** Request bodies of docs/api/casino.json for the sandbox tests. */
export const SECRET = 'sandbox-test-secret';

export function balanceBody(providerId: string, playerId: string, walletToken: string) {
  return { providerId, playerId, walletToken, sessionId: 'session-1', gameId: 7, currency: 'EUR' };
}

export function debitBody(providerId: string, playerId: string, walletToken: string, transactionId: string, amount: number) {
  return { ...balanceBody(providerId, playerId, walletToken), roundId: `round-${transactionId}`, transactionId, amount };
}

export function creditBody(providerId: string, playerId: string, walletToken: string, transactionId: string, amount: number) {
  return { ...debitBody(providerId, playerId, walletToken, transactionId, amount), reason: 'NORMAL_WIN', appliedMultiplier: 2, betAmount: amount / 2, previousTransactionId: 'bet-1', isRetry: false };
}

export function wallet(walletUrl: string, providerId: string, walletSecret = SECRET): CasinoWallet {
  return { providerId, walletUrl, walletSecret };
}

/** A raw signed POST, for what the relay client would never send (bad signatures, old timestamps). */
export async function rawPost(url: string, body: unknown, opts: { secret?: string; timestamp?: number; signature?: string | null } = {}) {
  const text = JSON.stringify(body);
  const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-relay-timestamp': String(timestamp) };
  const signature = opts.signature === undefined ? signCasinoRequest(opts.secret ?? SECRET, timestamp, text) : opts.signature;
  if (signature !== null) headers['x-relay-signature'] = signature;
  const res = await fetch(url, { method: 'POST', headers, body: text });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
