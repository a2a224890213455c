import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { replicationBarrier } from '@relay/shared';
import { quantile } from './harness';

/**
 * Replication lag as a money call's own record sees it (issue 34: "replication lag p99 under 1 s
 * during the money load"): how long after a money call's record is written on the money database
 * it is visible on the reporting database, while the money load runs.
 *
 * What is timed is the record itself, not a stand-in for it. Every `sampleMs` the next pair the load
 * sends is sampled: from the moment it is sent, the reporting database is polled every `pollMs` for
 * its two transactions (cash-out and cash-in, found by their idempotency keys as the reporting
 * routes find them) in state SUCCESS, the state the money call's outcome writes. A record's lag is
 * the reporting database's clock when a poll first sees it there, minus the record's `completed_at`:
 * the money database's `now()` in the very transaction that wrote the outcome (the wallet's
 * SUCCESS_CTES), which began before it committed. Both are the same server's clock (the reporting
 * database is the money database's name + `_reporting` on the same server), so no clock of this
 * process enters. The figure is an upper bound of "committed on the money database -> visible on
 * the reporting database" by at most the outcome statement's own run time and one poll interval
 * (plus a poll's own query time); polling from the send, not from the answer, keeps the time the
 * answer takes to come back out of it.
 *
 * Why not the replicated heartbeat (bump `replication_heartbeat` and wait for the beat, as
 * replicationBarrier does)? The heartbeat is a one-row update of its own small table: the apply
 * worker applies it without the ledger's indexes, partitions and its trigger, and its arrival says
 * that earlier commits have arrived only while the subscription applies strictly in commit order
 * (a streamed or parallel-applied large transaction would break that). It is a cheaper proxy that
 * could diverge from what a reader of the money records sees; a sampled money call's record cannot.
 * The platform's own heartbeat (the admin process, every REPLICATION_HEARTBEAT_MS) goes on
 * untouched: apart from the one replication barrier before it starts (a heartbeat bump, as the
 * tests' barrier makes), this probe writes nothing on the money database.
 *
 * A record the load's call got a 200 for but that never shows within the grace period after the
 * load is counted as unseen, and weighs as an infinite lag in the percentiles.
 */
export interface LagSummary {
  /** Records timed (seen on the reporting database) plus those never seen. */
  records: number;
  /** Records answered 200 on the money path that the reporting database never showed within the grace period. */
  unseen: number;
  /** Milliseconds; Infinity when unseen records reach that rank; NaN when nothing was sampled. */
  p50: number;
  p99: number;
  max: number;
}

/**
 * Percentiles of the lag samples (ms), with `unseen` records as infinite lags. The rank is the
 * bench's own (harness summarize): the sample at index floor(q * n) of the sorted n, which for
 * fewer than 100 samples makes p99 the largest.
 */
export function lagSummary(lagsMs: readonly number[], unseen = 0): LagSummary {
  const sorted = [...lagsMs, ...Array.from({ length: unseen }, () => Infinity)].sort((a, b) => a - b);
  const pick = (q: number) => quantile(sorted, q) ?? NaN;
  return { records: sorted.length, unseen, p50: pick(0.5), p99: pick(0.99), max: pick(1) };
}

/** A lag in seconds for the report: "0.042 s", "never seen", "n/a". */
export function formatLag(ms: number): string {
  if (Number.isNaN(ms)) return 'n/a';
  if (!Number.isFinite(ms)) return 'never seen';
  return `${(ms / 1000).toFixed(3)} s`;
}

export interface LagProbeOptions {
  /** How often a pair of the load is sampled. */
  sampleMs?: number;
  /** How often the reporting database is asked for the sampled records still unseen. */
  pollMs?: number;
}

export interface LagResult extends LagSummary {
  /** Sampled records whose money call was not answered 200 (never SUCCESS: not a lag sample). */
  failed: number;
  /** Polls that failed (the reporting database did not answer); the next poll tries again. */
  pollErrors: number;
  sampleMs: number;
  pollMs: number;
}

const SEEN_SQL = `
  SELECT k.transaction_id, (extract(epoch FROM clock_timestamp() - t.completed_at) * 1000)::float8 AS lag_ms
    FROM transaction_keys k
    JOIN transactions t ON t.id = k.id AND t.created_at = k.created_at
   WHERE k.provider_id = $1 AND k.transaction_id = ANY($2::text[]) AND t.status = 'SUCCESS'`;

/** See the comment above LagSummary: times sampled money calls' records from the money database to the reporting database. */
export class LagProbe {
  private readonly watched = new Set<string>();
  private readonly lags: number[] = [];
  private failed = 0;
  private pollErrors = 0;
  private due = true;
  private sampling = true;
  private graceUntil = Infinity;
  private readonly ticker: NodeJS.Timeout;
  private readonly polling: Promise<void>;

  private constructor(
    private readonly reporting: pg.Client,
    private readonly providerId: string,
    private readonly sampleMs: number,
    private readonly pollMs: number,
  ) {
    this.ticker = setInterval(() => (this.due = true), sampleMs);
    this.polling = this.poll();
  }

  /**
   * Starts sampling once the reporting database has everything the money database committed so far
   * (the replication barrier) and every table's first copy is done: what follows is the steady state.
   */
  static async start(moneyUrl: string, reportingUrl: string, providerId: string, options: LagProbeOptions = {}): Promise<LagProbe> {
    const money = new pg.Client({ connectionString: moneyUrl, application_name: 'relay-bench-lag' });
    const reporting = new pg.Client({ connectionString: reportingUrl, application_name: 'relay-bench-lag' });
    await money.connect();
    try {
      await reporting.connect();
      await replicationBarrier({ query: (sql) => money.query(sql) }, { query: (sql) => reporting.query(sql) }, 60_000);
    } catch (err) {
      await reporting.end().catch(() => undefined);
      throw err;
    } finally {
      await money.end().catch(() => undefined);
    }
    return new LagProbe(reporting, providerId, options.sampleMs ?? 200, options.pollMs ?? 10);
  }

  /**
   * The load calls this as it sends a pair, with its transactionIds: when a sample is due the
   * records are watched from now on, and true says so.
   */
  watch(transactionIds: readonly string[]): boolean {
    if (!this.sampling || !this.due) return false;
    this.due = false;
    for (const id of transactionIds) this.watched.add(id);
    return true;
  }

  /** A watched call's answer: one that was not a 200 writes no SUCCESS record and is not a sample. */
  answered(transactionId: string, ok: boolean): void {
    if (ok || !this.watched.delete(transactionId)) return;
    this.failed += 1;
  }

  /** Stops sampling, waits up to `graceMs` for the records still unseen, and summarises. */
  async stop(graceMs = 30_000): Promise<LagResult> {
    this.sampling = false;
    clearInterval(this.ticker);
    this.graceUntil = Date.now() + graceMs;
    await this.polling;
    const unseen = this.watched.size;
    await this.reporting.end().catch(() => undefined);
    return { ...lagSummary(this.lags, unseen), failed: this.failed, pollErrors: this.pollErrors, sampleMs: this.sampleMs, pollMs: this.pollMs };
  }

  private async poll(): Promise<void> {
    while (this.sampling || (this.watched.size > 0 && Date.now() < this.graceUntil)) {
      if (this.watched.size > 0) {
        try {
          const { rows } = await this.reporting.query<{ transaction_id: string; lag_ms: number }>(SEEN_SQL, [this.providerId, [...this.watched]]);
          for (const row of rows) {
            if (this.watched.delete(row.transaction_id)) this.lags.push(Math.max(0, Number(row.lag_ms)));
          }
        } catch {
          this.pollErrors += 1;
        }
      }
      await sleep(this.pollMs);
    }
  }
}
