import pg from 'pg';
import type { Logger } from 'pino';

/**
 * The ledger's maintenance jobs, run inside the admin service (docs/ledger.md). Each run holds a
 * PostgreSQL session advisory lock named after its job on a connection of its own, so that two
 * admin replicas never run the same job at once: the replica that does not get the lock skips
 * that turn. A failing run is logged, never thrown: the next turn tries again.
 */
export interface LedgerJob {
  name: string;
  intervalMs: number;
  /** Runs with the job's lock held; `client` is the locked session (a job may open others). */
  run(client: pg.Client): Promise<void>;
}

/** The advisory lock key of a job: one 64-bit key per name, the same on every replica. */
export const jobLockSql = `SELECT pg_try_advisory_lock(hashtextextended('relay_ledger_job:' || $1, 0)) AS locked`;
const unlockSql = `SELECT pg_advisory_unlock(hashtextextended('relay_ledger_job:' || $1, 0))`;

/** Runs one job once if no other process holds its lock; false when it was skipped. */
export async function runJobOnce(databaseUrl: string, job: LedgerJob, logger: Logger): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: `relay-ledger-${job.name}` });
  await client.connect();
  try {
    const { rows } = await client.query<{ locked: boolean }>(jobLockSql, [job.name]);
    if (!rows[0].locked) {
      logger.info({ job: job.name }, 'ledger job skipped: another process runs it');
      return false;
    }
    const started = Date.now();
    try {
      await job.run(client);
      logger.info({ job: job.name, ms: Date.now() - started }, 'ledger job done');
    } finally {
      // Closing the session would release the lock too; unlocking keeps the connection reusable.
      await client.query(unlockSql, [job.name]).catch(() => undefined);
    }
    return true;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export class LedgerScheduler {
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly running = new Set<Promise<unknown>>();
  private stopped = false;

  constructor(private readonly databaseUrl: string, private readonly logger: Logger, private readonly jobs: LedgerJob[]) {}

  /** Runs every job now, then at its interval (a turn is skipped while the previous one runs). */
  start(): void {
    for (const job of this.jobs) {
      let busy = false;
      const turn = () => {
        if (busy || this.stopped) return;
        busy = true;
        const work = runJobOnce(this.databaseUrl, job, this.logger)
          .catch((err) => this.logger.error({ err, job: job.name }, 'ledger job failed'))
          .finally(() => {
            busy = false;
            this.running.delete(work);
          });
        this.running.add(work);
      };
      const timer = setInterval(turn, job.intervalMs);
      timer.unref();
      this.timers.push(timer);
      setImmediate(turn);
    }
  }

  /**
   * Stops the timers and waits a little for the runs in progress. A long archive run is not
   * waited for: every job is safe to interrupt (the retention job's next run finishes the month),
   * and the shutdown has its own deadline for the pools and the rest.
   */
  async stop(graceMs = 5000): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([Promise.allSettled([...this.running]), grace]);
    clearTimeout(timer);
  }
}
