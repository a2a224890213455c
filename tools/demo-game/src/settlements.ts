import type { Logger } from '@relay/shared';
import { RelayError, type Account, type CashInBody, type CashOutBody, type RelayClient } from './relay';

/**
 * Every bet is settled with exactly one credit, and a failed credit is money owed to the player:
 * the game must repeat it, with the same transactionId, until the casino accepts it (spec, Money
 * route handling rules). A few quick attempts first; then it is handed to background retries on
 * the cash-in retry route (which also finds a session that expired meanwhile). A real game keeps
 * this queue in durable storage; here a restart forgets it, and the FAILED transaction in the
 * relay's reporting is what reconciliation finds.
 *
 * A bet whose debit never got a clear answer is resolved the same way: the debit is repeated (same
 * transactionId) until the relay says whether it was taken; if it was, the round was never played,
 * so the stake goes back with an INTEGRATION_TIMED_OUT refund.
 */
const QUICK_DELAYS_MS = [300, 1000];
const BACKGROUND_DELAYS_MS = [5_000, 15_000, 30_000, 60_000, 120_000, 300_000];

export class Settlements {
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly relay: RelayClient,
    private readonly logger: Logger,
  ) {}

  /** The account after the credit, or null when it is still owed and left to background retries. */
  async settle(body: CashInBody): Promise<Account | null> {
    let last: RelayError | undefined;
    for (let attempt = 0; attempt <= QUICK_DELAYS_MS.length; attempt++) {
      if (attempt > 0) await sleep(QUICK_DELAYS_MS[attempt - 1]);
      try {
        return await this.relay.cashIn(body, attempt > 0);
      } catch (err) {
        if (!(err instanceof RelayError) || !worthRepeating(err)) throw err;
        last = err;
      }
    }
    this.logger.warn({ roundId: body.roundId, transactionId: body.transactionId, code: last?.code }, 'cash-in failed; retrying in the background');
    this.schedule(body, 0);
    return null;
  }

  /** Resolves a debit whose outcome stayed unknown, in the background; refunds it if it was taken. */
  resolveUnknownBet(debit: CashOutBody, index = 0): void {
    this.later(index, debit.roundId, async () => {
      try {
        await this.relay.cashOut(debit);
      } catch (err) {
        if (err instanceof RelayError && err.outcomeUnknown) return this.resolveUnknownBet(debit, index + 1);
        this.logger.info({ roundId: debit.roundId, code: err instanceof RelayError ? err.code : undefined }, 'unconfirmed bet was not taken');
        return;
      }
      const { game: _gameData, ...fields } = debit;
      const refund: CashInBody = {
        ...fields,
        transactionId: `${debit.roundId}-refund`,
        previousTransactionId: debit.transactionId,
        betAmount: debit.amount,
        reason: 'INTEGRATION_TIMED_OUT',
        appliedMultiplier: 0,
        game: { outcome: 'REFUNDED' },
      };
      this.logger.warn({ roundId: debit.roundId }, 'unconfirmed bet was taken; refunding it');
      this.schedule(refund, 0);
    });
  }

  /** Stops the background retries (the process is stopping). */
  close(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private schedule(body: CashInBody, index: number): void {
    this.later(index, body.roundId, async () => {
      try {
        await this.relay.cashIn(body, true);
        this.logger.info({ roundId: body.roundId, transactionId: body.transactionId }, 'owed cash-in settled on retry');
      } catch (err) {
        if (err instanceof RelayError && worthRepeating(err)) this.schedule(body, index + 1);
        else this.logger.error({ roundId: body.roundId, transactionId: body.transactionId, err }, 'cash-in retry refused; left to reconciliation');
      }
    });
  }

  /** Runs `work` after the index-th background delay; past the last one, gives up loudly. */
  private later(index: number, roundId: string, work: () => Promise<void>): void {
    if (index >= BACKGROUND_DELAYS_MS.length) {
      this.logger.error({ roundId }, 'still unresolved after every retry; left to reconciliation');
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      work().catch((err: unknown) => this.logger.error({ roundId, err }, 'background retry failed'));
    }, BACKGROUND_DELAYS_MS[index]);
    this.timers.add(timer);
  }
}

/**
 * Repeating a credit with the same transactionId is always safe (the relay replays a success and
 * the casino dedupes); it is worth it when the failure may pass: no answer, a casino outage, or a
 * session that expired (the retry route resolves it from the archive).
 */
function worthRepeating(err: RelayError): boolean {
  return err.outcomeUnknown || err.status >= 500 || err.code === 'SESSION_EXPIRED';
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
