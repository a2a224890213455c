import { casinoSignatureProblem, signCasinoRequest, SIGNATURE_HEADER, SIGNATURE_MAX_SKEW_SECONDS, TIMESTAMP_HEADER, type SignatureProblem } from '@relay/shared';
import type { SandboxBreak } from './breaks';
import { FaultBook, type Fault, type FaultMatch, type SandboxOperation, type ScriptedFault } from './faults';
import { Ledger, walletError, type JournalEntry, type MoneyOperation, type PlayerFilter, type PlayerInput, type PlayerView, type WalletAnswer } from './ledger';
import { bodyProblem } from './protocol';

/**
 * The sandbox casino without its HTTP server: signature check, contract check, scripted faults,
 * then the ledger. Every request is written to the call log, without the walletToken.
 */
export type Outcome = { kind: 'answer'; status: number; contentType: string; text: string } | { kind: 'reset' };

export interface CallRecord {
  seq: number;
  at: string;
  operation: string;
  providerId?: string;
  playerId?: string;
  transactionId?: string;
  roundId?: string;
  /** The request body without the walletToken; null when it was not a JSON object. */
  body: Record<string, unknown> | null;
  signature: 'valid' | 'unchecked' | SignatureProblem;
  status?: number;
  reset?: boolean;
  fault?: Fault['kind'];
  replayed?: boolean;
  applied?: boolean;
}

export interface CallFilter {
  operation?: string;
  providerId?: string;
  playerId?: string;
  transactionId?: string;
  roundId?: string;
}

export interface RoundEndedNotice {
  providerId: string;
  groupId: string;
  roundId: string;
  at: string;
}

export interface SandboxCasinoOptions {
  walletSecret?: string;
  maxSkewSeconds?: number;
  /** Called with every call record once answered (main.ts prints them). */
  onCall?: (record: CallRecord) => void;
  /** Protocol rules to break on purpose, one per switch (breaks.ts); for the certification kit's tests. */
  breaks?: readonly SandboxBreak[];
}

/** How long the debit-race break "waits on its store" between the idempotency check and the write. */
const RACE_WINDOW_MS = 150;

export class SandboxCasino {
  /** The rules this sandbox breaks on purpose; empty for an honest casino. */
  readonly breaks: ReadonlySet<SandboxBreak>;
  private readonly book: Ledger;
  private readonly faultBook = new FaultBook();
  private readonly callLog: CallRecord[] = [];
  private readonly notices: RoundEndedNotice[] = [];
  private readonly secrets = new Map<string, string>();
  private defaultSecret: string | undefined;
  private readonly timers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  private stopped = false;

  constructor(private readonly options: SandboxCasinoOptions = {}) {
    this.defaultSecret = options.walletSecret;
    this.breaks = new Set(options.breaks ?? []);
    this.book = new Ledger(this.breaks);
  }

  // ---- control -------------------------------------------------------------------------------

  addPlayer(input: PlayerInput): PlayerView {
    return this.book.addPlayer(input);
  }

  getPlayer(providerId: string, playerId: string): PlayerView | undefined {
    return this.book.getPlayer(providerId, playerId);
  }

  setBalance(providerId: string, playerId: string, balance: number | string): PlayerView | undefined {
    return this.book.setBalance(providerId, playerId, balance);
  }

  /** Checks this casino's signatures with `secret`; null falls back to the default secret. */
  setSecret(providerId: string, secret: string | null): void {
    if (secret === null) this.secrets.delete(providerId);
    else this.secrets.set(providerId, secret);
  }

  /** The secret for casinos without their own; null stops checking them. */
  setDefaultSecret(secret: string | null): void {
    this.defaultSecret = secret ?? undefined;
  }

  setFault(match: FaultMatch, fault: Fault, times?: number): number {
    return this.faultBook.set(match, fault, times);
  }

  removeFault(id: number): boolean {
    return this.faultBook.remove(id);
  }

  clearFaults(): void {
    this.faultBook.clear();
  }

  faults(): ScriptedFault[] {
    return this.faultBook.list();
  }

  ledger(filter: PlayerFilter = {}): PlayerView[] {
    return this.book.players(filter);
  }

  journal(filter: PlayerFilter & { transactionId?: string; operation?: MoneyOperation } = {}): JournalEntry[] {
    return this.book.journal(filter);
  }

  calls(filter: CallFilter = {}): CallRecord[] {
    return this.callLog.filter((c) => (Object.keys(filter) as (keyof CallFilter)[]).every((k) => filter[k] === undefined || c[k] === filter[k]));
  }

  countCalls(filter: CallFilter = {}): number {
    return this.calls(filter).length;
  }

  roundEnded(filter: { providerId?: string; roundId?: string } = {}): RoundEndedNotice[] {
    return this.notices.filter((n) => (filter.providerId === undefined || n.providerId === filter.providerId) && (filter.roundId === undefined || n.roundId === filter.roundId));
  }

  roundEndedCount(filter: { providerId?: string; roundId?: string } = {}): number {
    return this.roundEnded(filter).length;
  }

  /** Forgets players, movements, calls, notices and faults; secrets stay. */
  reset(): void {
    this.book.reset();
    this.faultBook.clear();
    this.callLog.length = 0;
    this.notices.length = 0;
  }

  /** Ends pending delays so the process can exit. */
  stop(): void {
    this.stopped = true;
    for (const t of this.timers) {
      clearTimeout(t.timer);
      t.resolve();
    }
    this.timers.clear();
  }

  // ---- wallet ---------------------------------------------------------------------------------

  async handle(operation: SandboxOperation, raw: Buffer, headers: Record<string, string | string[] | undefined>): Promise<Outcome> {
    const record: CallRecord = { seq: this.callLog.length + 1, at: new Date().toISOString(), operation, body: null, signature: 'unchecked' };
    this.callLog.push(record);
    const answered = await this.answer(operation, raw, headers, record);
    const outcome = this.breaks.has('text-content-type') && answered.kind === 'answer' ? { ...answered, contentType: 'text/plain' } : answered;
    if (outcome.kind === 'reset') record.reset = true;
    else record.status = outcome.status;
    this.options.onCall?.(record);
    return outcome;
  }

  private async answer(operation: SandboxOperation, raw: Buffer, headers: Record<string, string | string[] | undefined>, record: CallRecord): Promise<Outcome> {
    const body = parseObject(raw);
    if (!body) return json(walletError(400, 'BAD_REQUEST', 'body must be a JSON object'));
    const { walletToken, ...safe } = body;
    record.body = safe;
    for (const k of ['providerId', 'playerId', 'transactionId', 'roundId'] as const) if (typeof body[k] === 'string') record[k] = body[k];
    const providerId = record.providerId ?? '';

    const secret = this.secrets.get(providerId) ?? this.defaultSecret;
    if (secret !== undefined) {
      const problem = this.signatureProblem(secret, raw, headers);
      record.signature = problem ?? 'valid';
      if (problem) return json(walletError(401, 'BAD_SIGNATURE'));
    }
    const problem = bodyProblem(operation, body);
    if (problem) return json(walletError(400, 'BAD_REQUEST', problem));
    if (operation === 'round-ended' && this.breaks.has('round-ended-fails')) return json(walletError(500, 'INTERNAL_ERROR'));
    if (operation === 'debit' && this.breaks.has('debit-race') && !this.book.seen(providerId, body.transactionId)) {
      // The broken casino looked the transactionId up, found nothing, and writes after a slow
      // round trip to its store without looking again: a second identical debit slips through.
      await this.sleep(RACE_WINDOW_MS);
      if (this.stopped) return { kind: 'reset' };
      const answer = this.book.debit({ ...body, providerId, playerId: String(body.playerId) }, false);
      record.applied = answer.applied ?? false;
      return json(answer);
    }

    const fault = this.faultBook.take({ providerId, playerId: record.playerId, operation });
    if (fault) record.fault = fault.kind;
    const apply = (): WalletAnswer => {
      const answer = this.apply(operation, { ...body, walletToken });
      record.applied = answer.applied ?? false;
      if (answer.replayed) record.replayed = true;
      return answer;
    };
    return fault ? this.withFault(fault, apply, providerId, record.playerId ?? '', String(walletToken ?? '')) : json(apply());
  }

  private signatureProblem(secret: string, raw: Buffer, headers: Record<string, string | string[] | undefined>): SignatureProblem | null {
    const timestamp = header(headers, TIMESTAMP_HEADER);
    // no-signature-check still refuses a missing or stale timestamp: it breaks one rule only.
    const signature = this.breaks.has('no-signature-check') && timestamp !== undefined ? signCasinoRequest(secret, timestamp, raw) : header(headers, SIGNATURE_HEADER);
    const maxSkewSeconds = this.breaks.has('no-timestamp-check') ? Number.POSITIVE_INFINITY : (this.options.maxSkewSeconds ?? SIGNATURE_MAX_SKEW_SECONDS);
    return casinoSignatureProblem(secret, timestamp, raw, signature, { maxSkewSeconds });
  }


  private apply(operation: SandboxOperation, body: Record<string, unknown>): WalletAnswer {
    const req = { ...body, providerId: String(body.providerId), playerId: String(body.playerId) };
    switch (operation) {
      case 'balance':
        return this.book.balance(req);
      case 'debit':
        return this.book.debit(req);
      case 'credit':
        return this.book.credit(req);
      case 'round-ended':
        this.notices.push({ providerId: String(body.providerId), groupId: String(body.groupId), roundId: String(body.roundId), at: new Date().toISOString() });
        return { status: 200, body: { ok: true } };
    }
  }

  private async withFault(fault: Fault, apply: () => WalletAnswer, providerId: string, playerId: string, walletToken: string): Promise<Outcome> {
    switch (fault.kind) {
      case 'insufficientFunds':
        return json(walletError(400, 'INSUFFICIENT_FUNDS'));
      case 'tokenExpired':
        return json(walletError(fault.status ?? 401, 'TOKEN_EXPIRED'));
      case 'error':
        if (fault.applyFirst) apply();
        return json(walletError(fault.status, fault.error ?? (fault.status >= 500 ? 'INTERNAL_ERROR' : 'REFUSED')));
      case 'malformed':
        if (fault.applyFirst) apply();
        return malformed(fault.body ?? 'not-json');
      case 'balanceAsString': {
        const answer = apply();
        const exact = this.book.exactBalance(providerId, playerId);
        if (answer.status !== 200 || !exact) return json(answer);
        return json({ status: 200, body: { ...answer.body, balance: fault.value ?? exact.toFixed(fault.decimals ?? 6) } });
      }
      case 'username': {
        const answer = apply();
        if (answer.status !== 200) return json(answer);
        return json({ status: 200, body: { ...answer.body, username: fault.walletToken ? walletToken : (fault.value ?? '') } });
      }
      case 'delay': {
        if (fault.applyFirst) {
          const answer = apply();
          await this.sleep(fault.ms);
          return json(answer);
        }
        await this.sleep(fault.ms);
        // A stopped sandbox moves no money after its caller is gone.
        return this.stopped ? { kind: 'reset' } : json(apply());
      }
      case 'reset':
        if (fault.applyFirst !== false) apply();
        return { kind: 'reset' };
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const entry = { timer: setTimeout(() => (this.timers.delete(entry), resolve()), ms), resolve };
      this.timers.add(entry);
    });
  }
}

function json(answer: WalletAnswer): Outcome {
  return { kind: 'answer', status: answer.status, contentType: 'application/json', text: JSON.stringify(answer.body) };
}

function malformed(body: 'not-json' | 'no-balance' | 'negative-balance' | 'empty'): Outcome {
  switch (body) {
    case 'not-json':
      return { kind: 'answer', status: 200, contentType: 'text/html', text: '<html><body>Service temporarily unavailable</body></html>' };
    case 'no-balance':
      return { kind: 'answer', status: 200, contentType: 'application/json', text: '{"status":"ok"}' };
    case 'negative-balance':
      return { kind: 'answer', status: 200, contentType: 'application/json', text: '{"balance":-5}' };
    case 'empty':
      return { kind: 'answer', status: 200, contentType: 'application/json', text: '' };
  }
}

function parseObject(raw: Buffer): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
