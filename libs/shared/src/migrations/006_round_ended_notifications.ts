import type { Knex } from 'knex';

/**
 * Each casino's round-ended notification and its result, as the notifier answered the game: the
 * round's story in the back office shows who was told that a round ended, when, and what each
 * casino answered (the queue itself keeps jobs for minutes only). One row per casino per call;
 * a game that repeats the call adds rows, so the story shows every try.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE round_ended_notifications (
      id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      provider_id   text NOT NULL,
      round_id      text NOT NULL,
      group_id      text NOT NULL,
      request_id    text,
      outcome       text NOT NULL,
      error_message text,
      notified_at   timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX round_ended_notifications_round ON round_ended_notifications (provider_id, round_id, id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE IF EXISTS round_ended_notifications');
}
