import type { CasinoAddressPolicy, Change, ChangeBus, Knex, Logger, OperatorSessions, SecretBox } from '@relay/shared';

/** What the admin use cases need; built once per process in app.ts. */
export interface AdminDeps {
  db: Knex;
  secrets: SecretBox;
  /** Tell every process's caches that a record changed (docs/api/admin.json: effective within one second). */
  publishChange: (...changes: Change[]) => Promise<void>;
  /** Which casino wallet addresses may be saved (production: public ones, or the allow-list). */
  walletAddresses?: CasinoAddressPolicy;
  /** Back-office sessions, ended when their accounts are disabled with a deleted casino. */
  sessions: Pick<OperatorSessions, 'revokeAccount'>;
}

/**
 * Publishing happens after the commit: a cache must never drop an entry and reload it before the
 * new value is visible. A failed publish does not undo a committed change, so it is logged rather
 * than reported as a failed request; while Redis is unreachable the subscribers are unhealthy too
 * and their caches fall back to a half-second lifetime (libs/shared cache.ts).
 */
export function changePublisher(bus: ChangeBus, logger: Logger): AdminDeps['publishChange'] {
  return async (...changes) => {
    for (const change of changes) {
      try {
        await bus.publish(change);
      } catch (err) {
        logger.error({ err, change }, 'could not publish an admin change; caches expire it on their own');
      }
    }
  };
}
