import { AppError, finishingWork, toJsonNumber, toMoneyString, type CasinoClient, type Knex, type Logger } from '@relay/shared';
import { claimOrFindTransaction, markFailed, takeOverTransaction, type Claim, type ClaimOrExisting, type ExistingTransaction, type MovementRecord, type SuccessFacts } from '../data/transactions';
import type { Account } from './balance';
import type { ResolvedSession, SessionAccessDeps } from './session-access';

export interface MovementDeps extends SessionAccessDeps {
  db: Knex;
  casinos: CasinoClient;
  logger: Logger;
  inFlightSeconds: number;
  /** relay_transactions_total{category,status}: counted where a SUCCESS or FAILED is written. */
  transactions?: { inc(labels: { category: string; status: 'SUCCESS' | 'FAILED' }): void };
}

export interface Movement {
  resolved: ResolvedSession;
  record: MovementRecord;
  /** The request as the game sent it, kept on the attempt's audit row. */
  request: object;
  operation: 'debit' | 'credit';
  /** What the casino is sent, built only when it is called (it carries the decrypted wallet token). */
  casinoBody: () => Record<string, unknown>;
  /** Writes SUCCESS together with the movement's round effect, atomically. */
  complete: (success: SuccessFacts) => Promise<void>;
  /**
   * The claim-or-find of a movement with more to write with its claim (a managed freebet credit
   * consumes a round, domain/free-round-credit.ts); the plain statement when absent. It must claim
   * exactly as claimOrFindTransaction does, in the same database transaction as its own writes.
   */
  claim?: (record: MovementRecord, request: object) => Promise<ClaimOrExisting>;
  /**
   * Throws when the record about to be taken over (FAILED, or PENDING past the in-flight window) is
   * not the same movement in a way the claim's own test cannot see (a managed casino's freebet
   * credit: its reason class, award and bet value). Runs on that rare path only.
   */
  beforeTakeover?: (existing: ExistingTransaction) => Promise<void>;
}

/** What every money call of a game names (the spec's common money route fields). */
export interface MovementRequest {
  sessionId: string;
  gameId: number;
  currency: string;
  roundId: string;
  transactionId: string;
  amount: number;
  language?: string;
}

const MAX_CLAIM_ROUNDS = 3;

/** The keys and references every transaction record takes from its session and request. */
export function recordKeys(resolved: ResolvedSession, req: MovementRequest) {
  const { session } = resolved;
  return {
    providerId: session.providerId,
    transactionId: req.transactionId,
    groupId: resolved.game.groupId,
    gameId: session.gameId,
    playerId: session.playerId,
    sessionId: session.sessionId,
    roundId: req.roundId,
    currency: session.currency,
    language: req.language ?? session.language,
  };
}

/**
 * The idempotency state machine of the spec's Transaction table. The PENDING claim is durable
 * before the casino is called; the casino's answer and the round it affects are written together.
 * A crash at any point leaves a PENDING record that the same request resolves after the
 * in-flight window, and the casino's own idempotency on transactionId makes that repeat safe.
 */
export async function moveMoney(deps: MovementDeps, m: Movement): Promise<Account> {
  const { record } = m;
  for (let round = 0; round < MAX_CLAIM_ROUNDS; round++) {
    // One round trip: the claim, or (the key exists) the record a replay answers from.
    const outcome = m.claim ? await m.claim(record, m.request) : await claimOrFindTransaction(deps.db, record, m.request);
    if ('claim' in outcome) return attempt(deps, m, outcome.claim);

    const { existing } = outcome;
    if (!existing) continue; // claimed concurrently after this statement's snapshot: claim again
    // The claim's own test of "the same movement", for the refusal it cannot express.
    const sameOwner = existing.groupId === record.groupId || existing.gameId === record.gameId;
    if (!sameOwner || existing.category !== record.category || existing.playerId !== record.playerId) {
      throw new AppError('Bad Request', 'transactionId was already used for another movement; each movement needs a fresh transactionId');
    }
    if (existing.status === 'SUCCESS') {
      deps.logger.info({ transactionId: record.transactionId }, 'replay of a successful transaction; casino not called');
      return { id: existing.playerId, balance: toJsonNumber(existing.balance) ?? 0, username: existing.username ?? existing.playerId };
    }
    if (existing.status === 'PENDING' && existing.ageSeconds < deps.inFlightSeconds) {
      const wait = Math.max(1, Math.ceil(deps.inFlightSeconds - existing.ageSeconds));
      throw new AppError('TRANSACTION_IN_FLIGHT', 'An earlier attempt with this transactionId is still running', { headers: { 'Retry-After': String(wait) } });
    }
    // FAILED, or PENDING past the in-flight window: take it over (one concurrent repeat wins).
    await m.beforeTakeover?.(existing);
    const takeover = await takeOverTransaction(deps.db, existing, record, m.request, deps.inFlightSeconds);
    if (takeover) return attempt(deps, m, takeover);
  }
  throw new AppError('TRANSACTION_IN_FLIGHT', 'This transactionId is contended; repeat the request', { headers: { 'Retry-After': '1' } });
}

async function attempt(deps: MovementDeps, m: Movement, claim: Claim): Promise<Account> {
  const { resolved, record } = m;
  const answer = await deps.casinos.call(resolved.casino, m.operation, m.casinoBody());
  if (!answer.ok) {
    // Recording the casino's answer finishes admitted work: never behind this provider's new claims.
    await finishingWork(() => markFailed(deps.db, claim, answer.error.code, answer.error.message, { casinoStatus: answer.casinoStatus, casinoBody: answer.casinoBody }));
    deps.logger.warn({ transactionId: record.transactionId, code: answer.error.code, attempt: claim.attempt }, `${m.operation} failed`);
    deps.transactions?.inc({ category: record.category, status: 'FAILED' });
    throw answer.error;
  }
  const username = answer.username ?? resolved.session.username ?? resolved.session.playerId;
  try {
    await finishingWork(() => m.complete({ claim, balance: toMoneyString(answer.balance), username, casinoStatus: answer.status, casinoBody: answer.casinoBody }));
  } catch (err) {
    // The casino moved the money but its outcome could not be recorded: the record stays PENDING.
    // Never a 500 here (on cash-out that means "bet rejected"): the game repeats the same request
    // after the in-flight window and the casino's idempotency returns the same answer.
    deps.logger.error({ err, transactionId: record.transactionId, attempt: claim.attempt }, 'casino succeeded but the outcome was not recorded');
    throw new AppError('SERVICE_UNAVAILABLE', 'The outcome could not be recorded; repeat the request with the same transactionId', {
      headers: { 'Retry-After': String(deps.inFlightSeconds) },
    });
  }
  deps.transactions?.inc({ category: record.category, status: 'SUCCESS' });
  return { id: resolved.session.playerId, balance: answer.balance, username };
}
