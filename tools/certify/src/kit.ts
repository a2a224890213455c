import { randomUUID } from 'node:crypto';
import {
  interpretCasinoAnswer,
  money,
  type CasinoBalanceRequest,
  type CasinoCreditRequest,
  type CasinoDebitRequest,
  type CasinoMoneyOperation,
  type MoneyValue,
} from '@relay/shared';
import type { CertifyConfig, PlayerRole } from './config';
import type { Reply, SendOptions, WalletLine } from './wallet';

/**
 * What every check works with: the config, the line to the wallet, fresh ids for this run, the
 * request bodies of the protocol, and balance reading. A check ends early by throwing CheckFailed.
 */
export class CheckFailed extends Error {
  constructor(
    message: string,
    readonly received?: string,
  ) {
    super(message);
  }
}

/** What a money answer said, when it is a usable account. */
export interface Account {
  /** Exactly as the casino wrote it (a float's rounding error shows here). */
  exact: MoneyValue;
  /** Rounded half-up to cents, as the relay reads it. */
  cents: MoneyValue;
}

/** A money call a later check repeats with the same transactionId. */
export interface MoneyCall {
  body: CasinoDebitRequest | CasinoCreditRequest;
  reply: Reply;
  account: Account;
}

/** What a credit pays: a win (NORMAL_WIN) or a loss (BET_LOST, 0) settling one of the kit's bets. */
export type CreditReason = 'NORMAL_WIN' | 'BET_LOST';

export class Kit {
  /** Unique per run, so every transactionId the kit sends is new to the casino. */
  readonly runId = `certify-${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}-${randomUUID().slice(0, 8)}`;
  /** Set by the checks that the idempotency checks repeat. */
  firstDebit?: MoneyCall;
  firstCredit?: MoneyCall;
  private sequence = 0;

  constructor(
    readonly config: CertifyConfig,
    readonly wallet: WalletLine,
  ) {}

  newId(kind: 'tx' | 'round'): string {
    return `${this.runId}-${kind}-${++this.sequence}`;
  }

  has(role: PlayerRole): boolean {
    return this.config.players[role] !== undefined;
  }

  balanceBody(role: PlayerRole, override?: { playerId: string; walletToken: string }): CasinoBalanceRequest {
    const player = override ?? this.config.players[role];
    if (!player) throw new Error(`no ${role} player in the config`);
    return {
      providerId: this.config.providerId,
      playerId: player.playerId,
      walletToken: player.walletToken,
      sessionId: `${this.runId}-session`,
      gameId: this.config.gameId,
      currency: this.config.currency,
    };
  }

  debitBody(role: PlayerRole, amount: MoneyValue | string): CasinoDebitRequest {
    return { ...this.balanceBody(role), roundId: this.newId('round'), transactionId: this.newId('tx'), amount: money(amount.toString()).toNumber() };
  }

  /**
   * A credit settling `bet` (its round, its transactionId as previousTransactionId, its amount as
   * betAmount), the way a game settles a bet, so a wallet that checks the bet exists accepts it.
   */
  creditBody(bet: CasinoDebitRequest, amount: MoneyValue | string, reason: CreditReason = 'NORMAL_WIN'): CasinoCreditRequest {
    const paid = money(amount.toString());
    const stake = money(String(bet.amount));
    return {
      ...bet,
      transactionId: this.newId('tx'),
      amount: paid.toNumber(),
      reason,
      appliedMultiplier: reason === 'NORMAL_WIN' && !stake.isZero() ? paid.div(stake).toDecimalPlaces(2).toNumber() : 0,
      betAmount: stake.toNumber(),
      previousTransactionId: bet.transactionId,
      isRetry: false,
    };
  }

  send(operation: CasinoMoneyOperation | 'round-ended', body: object, options?: SendOptions): Promise<Reply> {
    return this.wallet.send(operation, body, options);
  }

  /** The exact balance of a test player; fails the check when the casino does not give one. */
  async balanceOf(role: PlayerRole): Promise<MoneyValue> {
    const reply = await this.send('balance', this.balanceBody(role));
    const account = this.accountIn(reply);
    if (!account) throw new CheckFailed(`could not read the ${role} player's balance`, this.describe(reply));
    return account.exact;
  }

  /** The account in a 2xx money answer, or null when the relay could not use the answer. */
  accountIn(reply: Reply): Account | null {
    if (reply.status === undefined) return null;
    const verdict = interpretCasinoAnswer(reply.operation, reply.status, reply.text);
    if (!verdict.ok || !('balance' in verdict)) return null;
    const value = (JSON.parse(reply.text) as { balance: number | string }).balance;
    const exact = money(typeof value === 'string' ? value.trim() : String(value));
    return { exact, cents: money(String(verdict.balance)) };
  }

  /** "401 {"error":"BAD_SIGNATURE"}": printable, cut short, every secret of the config blanked out. */
  describe(reply: Reply): string {
    if (reply.status === undefined) return `no answer: ${reply.transportError ?? 'network error'}`;
    const text = printable(this.redact(reply.text));
    return `${reply.status} ${text.length > 120 ? `${text.slice(0, 117)}...` : text}`.trim();
  }

  redact(text: string): string {
    const secrets = [this.config.walletSecret, ...Object.values(this.config.players).map((p) => p?.walletToken)];
    return secrets.reduce<string>((acc, s) => (s ? acc.split(s).join('[redacted]') : acc), text);
  }

  /** "1.23 EUR" */
  amount(value: MoneyValue | string): string {
    return `${money(value.toString()).toFixed(2)} ${this.config.currency}`;
  }
}

export const is2xx = (reply: Reply): boolean => reply.status !== undefined && reply.status >= 200 && reply.status < 300;
export const is4xx = (reply: Reply): boolean => reply.status !== undefined && reply.status >= 400 && reply.status < 500;

/**
 * A wallet's text made safe for a terminal and for XML: runs of whitespace become one space and
 * control characters (a terminal escape sequence, a NUL that no XML parser accepts) become \uXXXX.
 */
export function printable(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    // eslint-disable-next-line no-control-regex -- finding control characters is the point
    .replace(/[\u0000-\u001f\u007f-\u009f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
