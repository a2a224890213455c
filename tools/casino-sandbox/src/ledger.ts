import { constantTimeEqual, money, type MoneyValue } from '@relay/shared';
import type { SandboxBreak } from './breaks';

/**
 * The sandbox casino's books: one exact decimal balance per (providerId, playerId), the casino's
 * own idempotency store per (providerId, transactionId), and a journal of every applied movement.
 * All methods are synchronous, so one request's check-and-move is atomic in Node's event loop.
 */
export interface PlayerInput {
  providerId: string;
  playerId: string;
  walletToken: string;
  balance: number | string;
  username?: string;
}

/** What the sandbox shows about a player: never the walletToken. */
export interface PlayerView {
  providerId: string;
  playerId: string;
  username?: string;
  balance: number;
  /** Exact decimal text of the balance. */
  balanceText: string;
}

export type MoneyOperation = 'debit' | 'credit';

export interface JournalEntry {
  providerId: string;
  playerId: string;
  transactionId: string;
  roundId?: string;
  operation: MoneyOperation;
  amount: number;
  balanceAfter: number;
  at: string;
}

/** An answer of the wallet, before any scripted fault rewrites it. */
export interface WalletAnswer {
  status: number;
  body: Record<string, unknown>;
  /** True when the answer is the stored result of an earlier call with the same transactionId. */
  replayed?: boolean;
  /** True when this call moved money. */
  applied?: boolean;
}

export interface WalletRequest {
  providerId: string;
  playerId: string;
  walletToken?: unknown;
  transactionId?: unknown;
  roundId?: unknown;
  amount?: unknown;
}

export interface PlayerFilter {
  providerId?: string;
  playerId?: string;
}

interface Player {
  providerId: string;
  playerId: string;
  walletToken: string;
  balance: MoneyValue;
  username?: string;
}

const key = (providerId: string, id: string) => `${providerId}\u0000${id}`;
export const walletError = (status: number, error: string, message?: string): WalletAnswer => ({ status, body: message ? { error, message } : { error } });

export class Ledger {
  private readonly accounts = new Map<string, Player>();
  private readonly results = new Map<string, WalletAnswer>();
  private readonly entries: JournalEntry[] = [];

  /** `breaks`: the protocol rules this ledger deliberately gets wrong (see breaks.ts). */
  constructor(private readonly breaks: ReadonlySet<SandboxBreak> = new Set()) {}

  /** Creates or replaces the player (a new walletToken makes the old one expire). */
  addPlayer(input: PlayerInput): PlayerView {
    const player: Player = {
      providerId: input.providerId,
      playerId: input.playerId,
      walletToken: input.walletToken,
      balance: parseBalance(input.balance),
      ...(input.username !== undefined ? { username: input.username } : {}),
    };
    this.accounts.set(key(input.providerId, input.playerId), player);
    return view(player);
  }

  getPlayer(providerId: string, playerId: string): PlayerView | undefined {
    const player = this.accounts.get(key(providerId, playerId));
    return player && view(player);
  }

  /** Sets a balance directly (a top-up at the casino), without a journal entry. */
  setBalance(providerId: string, playerId: string, balance: number | string): PlayerView | undefined {
    const player = this.accounts.get(key(providerId, playerId));
    if (!player) return undefined;
    player.balance = parseBalance(balance);
    return view(player);
  }

  players(filter: PlayerFilter = {}): PlayerView[] {
    return [...this.accounts.values()].filter((p) => matches(p, filter)).map(view);
  }

  journal(filter: PlayerFilter & { transactionId?: string; operation?: MoneyOperation } = {}): JournalEntry[] {
    return this.entries.filter((e) => matches(e, filter) && (filter.transactionId === undefined || e.transactionId === filter.transactionId) && (filter.operation === undefined || e.operation === filter.operation));
  }

  balance(req: WalletRequest): WalletAnswer {
    const player = this.authenticate(req);
    if (!player) return walletError(401, 'TOKEN_EXPIRED');
    if (this.breaks.has('unreadable-balance')) return { status: 200, body: { balance: `${player.balance.toFixed(2).replace('.', ',')} EUR` } };
    return { status: 200, body: account(player) };
  }

  /** `recheck: false` applies without looking at the idempotency store (the debit-race break). */
  debit(req: WalletRequest, recheck = true): WalletAnswer {
    return this.move('debit', req, recheck);
  }

  /** True when this transactionId already has a stored result. */
  seen(providerId: string, transactionId: unknown): boolean {
    return typeof transactionId === 'string' && this.results.has(key(providerId, transactionId));
  }

  credit(req: WalletRequest): WalletAnswer {
    return this.move('credit', req);
  }

  /** Exact balance text, for faults that answer the balance as a string. */
  exactBalance(providerId: string, playerId: string): MoneyValue | undefined {
    return this.accounts.get(key(providerId, playerId))?.balance;
  }

  reset(): void {
    this.accounts.clear();
    this.results.clear();
    this.entries.length = 0;
  }

  private move(operation: MoneyOperation, req: WalletRequest, recheck = true): WalletAnswer {
    const player = this.authenticate(req);
    if (!player) return walletError(401, 'TOKEN_EXPIRED');
    if (typeof req.transactionId !== 'string' || req.transactionId === '') return walletError(400, 'BAD_REQUEST', 'transactionId is required');
    if (typeof req.amount !== 'number' || !Number.isFinite(req.amount) || req.amount < 0) return walletError(400, 'BAD_REQUEST', 'amount must be a non-negative number');
    if (operation === 'credit' && req.amount === 0 && this.breaks.has('refuse-zero-credit')) return walletError(400, 'INVALID_AMOUNT', 'amount must be positive');

    // The casino's idempotency key: a repeat returns the first result and moves no money.
    const stored = recheck && !this.breaks.has(`non-idempotent-${operation}` as const) ? this.results.get(key(req.providerId, req.transactionId)) : undefined;
    if (stored) return { ...stored, replayed: true, applied: false };

    const amount = money(req.amount);
    // A refused debit is not stored, so a retry after a top-up can succeed.
    if (operation === 'debit' && player.balance.lt(amount)) return walletError(this.breaks.has('insufficient-funds-5xx') ? 500 : 400, 'INSUFFICIENT_FUNDS');
    player.balance = this.breaks.has('float-balance')
      ? money(operation === 'debit' ? player.balance.toNumber() - req.amount : player.balance.toNumber() + req.amount)
      : operation === 'debit'
        ? player.balance.minus(amount)
        : player.balance.plus(amount);
    const answer: WalletAnswer = { status: 200, body: account(player) };
    this.results.set(key(req.providerId, req.transactionId), answer);
    this.entries.push({
      providerId: player.providerId,
      playerId: player.playerId,
      transactionId: req.transactionId,
      ...(typeof req.roundId === 'string' ? { roundId: req.roundId } : {}),
      operation,
      amount: amount.toNumber(),
      balanceAfter: player.balance.toNumber(),
      at: new Date().toISOString(),
    });
    return { ...answer, applied: true };
  }

  private authenticate(req: WalletRequest): Player | undefined {
    let player = this.accounts.get(key(req.providerId, req.playerId));
    if (!player && this.breaks.has('accept-unknown-players') && typeof req.walletToken === 'string') {
      player = { providerId: req.providerId, playerId: req.playerId, walletToken: req.walletToken, balance: money(0) };
      this.accounts.set(key(req.providerId, req.playerId), player);
    }
    if (!player || typeof req.walletToken !== 'string') return undefined;
    if (!this.breaks.has('accept-expired-tokens') && !constantTimeEqual(player.walletToken, req.walletToken)) return undefined;
    return player;
  }
}

function parseBalance(balance: number | string): MoneyValue {
  const value = money(balance);
  if (!value.isFinite() || value.isNeg()) throw new Error('balance must be a non-negative number');
  return value;
}

function account(player: Player): Record<string, unknown> {
  return { balance: player.balance.toNumber(), ...(player.username !== undefined ? { username: player.username } : {}) };
}

function view(player: Player): PlayerView {
  return {
    providerId: player.providerId,
    playerId: player.playerId,
    ...(player.username !== undefined ? { username: player.username } : {}),
    balance: player.balance.toNumber(),
    balanceText: player.balance.toString(),
  };
}

function matches(item: { providerId: string; playerId: string }, filter: PlayerFilter): boolean {
  return (filter.providerId === undefined || item.providerId === filter.providerId) && (filter.playerId === undefined || item.playerId === filter.playerId);
}
