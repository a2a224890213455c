/**
 * What a game backend needs of the relay (spec, Endpoints), called with the game provider token.
 * Every failure is a RelayError carrying the relay's code, so the game decides by code, never by text.
 */
export interface RelaySession {
  sessionId: string;
  gameId: number;
  gameName: string;
  groupId: string;
  providerId: string;
  playerId: string;
  currency: string;
  language: string;
  expiresAt: string;
}

export interface Account {
  id: string;
  balance: number;
  username?: string;
}

export interface CurrencyConfig {
  currency: string;
  minBet: number;
  maxBet: number;
  defaultBet: number;
  betSuggestions: number[];
  maxWin: number;
}

export interface CashOutBody {
  sessionId: string;
  gameId: number;
  currency: string;
  roundId: string;
  transactionId: string;
  amount: number;
  game?: { gameData?: Record<string, unknown> };
}

export interface CashInBody extends Omit<CashOutBody, 'game'> {
  reason: 'NORMAL_WIN' | 'BET_LOST' | 'INTEGRATION_TIMED_OUT';
  appliedMultiplier: number;
  previousTransactionId: string;
  betAmount: number;
  game?: { outcome?: string; settlementData?: Record<string, unknown> };
}

export type ReportFilter = Record<string, string | number>;

/** Time-out of one call to the relay: above its own casino time-out (10 s), so we hear its 408. */
const REQUEST_TIMEOUT_MS = 15000;

export class RelayError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'RelayError';
  }

  /**
   * The money call may or may not have happened: no answer, a time-out, or an earlier attempt still
   * in flight. Repeating it with the same transactionId resolves it (spec, idempotency summary).
   */
  get outcomeUnknown(): boolean {
    return this.status === 0 || this.status === 408 || this.code === 'TRANSACTION_IN_FLIGHT';
  }
}

export class RelayClient {
  constructor(
    private readonly baseUrl: string,
    private readonly providerToken: string,
  ) {}

  /** The session as the relay knows it; the casino has just confirmed the player's wallet token. */
  async validateSession(sessionId: string, gameId: number, currency?: string): Promise<RelaySession> {
    const query = new URLSearchParams({ gameId: String(gameId), ...(currency ? { currency } : {}) });
    return envelopeData(await this.call('GET', `/api/v1/sessions/${encodeURIComponent(sessionId)}?${query}`));
  }

  async account(sessionId: string, currency: string): Promise<Account> {
    return (await this.call('GET', `/api/account?${new URLSearchParams({ sessionId, currency })}`)) as Account;
  }

  async cashOut(body: CashOutBody): Promise<Account> {
    return (await this.call('POST', '/api/balance/cash-out', body)) as Account;
  }

  /** `retry`: the cash-in retry route, which also finds a session expired from the live store. */
  async cashIn(body: CashInBody, retry = false): Promise<Account> {
    return (await this.call('POST', retry ? '/api/balance/cash-in/retry' : '/api/balance/cash-in', body)) as Account;
  }

  async roundEnded(roundId: string, providerIds: string[]): Promise<void> {
    await this.call('POST', '/api/round-ended', { roundId, providerIds });
  }

  /** This casino's bet limits for the game in one currency, or null when it configured none. */
  async currencyConfig(providerId: string, gameId: number, currency: string): Promise<CurrencyConfig | null> {
    const query = new URLSearchParams({ providerId, gameId: String(gameId) });
    const entries = envelopeData<{ games: { gameId: number; currencyConfigs: CurrencyConfig[] }[] }[]>(await this.call('GET', `/api/v1/provider-catalog?${query}`));
    const game = entries.flatMap((e) => e.games).find((g) => g.gameId === gameId);
    return game?.currencyConfigs.find((c) => c.currency.toUpperCase() === currency.toUpperCase()) ?? null;
  }

  async rounds(filter: ReportFilter): Promise<Record<string, unknown>[]> {
    return envelopeData(await this.call('GET', `/api/v1/rounds?${toQuery(filter)}`));
  }

  async transactions(filter: ReportFilter): Promise<Record<string, unknown>[]> {
    return envelopeData(await this.call('GET', `/api/v1/transactions?${toQuery(filter)}`));
  }

  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.providerToken}`, accept: 'application/json', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (err) {
      throw new RelayError(0, 'RELAY_UNREACHABLE', `no answer from the relay: ${(err as Error).message}`);
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!res.ok) {
      const answer = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as { error?: unknown; message?: unknown };
      const code = typeof answer.error === 'string' ? answer.error : `HTTP_${res.status}`;
      throw new RelayError(res.status, code, typeof answer.message === 'string' ? answer.message : `${method} ${path.split('?')[0]} answered ${res.status} ${code}`);
    }
    if (parsed === undefined) throw new RelayError(502, 'INVALID_RELAY_RESPONSE', `${method} ${path.split('?')[0]} answered ${res.status} without JSON`);
    return parsed;
  }
}

function envelopeData<T>(answer: unknown): T {
  return (answer as { data: T }).data;
}

function toQuery(filter: ReportFilter): string {
  return new URLSearchParams(Object.entries(filter).map(([k, v]): [string, string] => [k, String(v)])).toString();
}
