/**
 * The casino wallet protocol (docs/api/casino.json): what the relay sends to every casino. The bodies are
 * typed here so the wallet, the notifier and the sandbox casino agree on one shape.
 */
export type CasinoOperation = 'balance' | 'debit' | 'credit' | 'round-ended';
export type CasinoMoneyOperation = Exclude<CasinoOperation, 'round-ended'>;

export const CASINO_OPERATIONS: readonly CasinoOperation[] = ['balance', 'debit', 'credit', 'round-ended'];

/** Where and how to reach one casino; the secret only ever leaves the process as an HMAC. */
export interface CasinoWallet {
  providerId: string;
  walletUrl: string;
  walletSecret: string;
}

export interface CasinoBalanceRequest {
  providerId: string;
  playerId: string;
  walletToken: string;
  sessionId: string;
  gameId: number;
  currency: string;
}

export interface CasinoDebitRequest extends CasinoBalanceRequest {
  roundId: string;
  transactionId: string;
  amount: number;
}

export interface CasinoCreditRequest extends CasinoDebitRequest {
  reason: string;
  appliedMultiplier: number;
  betAmount: number;
  previousTransactionId?: string;
  awardId?: string;
  campaignId?: string;
  isLastFreebet?: boolean;
  isRetry: boolean;
}

export interface CasinoRoundEndedRequest {
  providerId: string;
  groupId: string;
  roundId: string;
}

/** The success body of balance, debit and credit. */
export interface CasinoAccountAnswer {
  balance: number | string;
  username?: string;
}
