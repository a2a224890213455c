import { currentContext, type Knex, type Logger } from '@relay/shared';
import type { Delivery } from '../domain/delivery';

/**
 * The record of each casino's round-ended result, for the round's story in the back office. The
 * game's answer does not wait on it failing: the casinos were told either way, so a failed write is
 * logged and the call answered as delivered.
 */
export function notificationJournal(db: Knex, logger: Logger) {
  return {
    async record(groupId: string, roundId: string, deliveries: Delivery[]): Promise<void> {
      if (deliveries.length === 0) return;
      const requestId = currentContext()?.requestId ?? null;
      const rows = deliveries.map((d) => ({
        provider_id: d.providerId,
        round_id: roundId,
        group_id: groupId,
        request_id: requestId,
        outcome: d.ok ? 'ok' : d.code,
        error_message: d.ok ? null : d.message.slice(0, 500),
      }));
      try {
        await db('round_ended_notifications').insert(rows);
      } catch (err) {
        logger.error({ err: { message: (err as Error).message }, roundId }, 'could not record round-ended results for the round story');
      }
    },
  };
}
