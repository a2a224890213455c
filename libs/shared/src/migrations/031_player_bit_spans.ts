import type { Knex } from 'knex';
import { columnDefinitions, PLAYER_BITMAPS } from './player-bitmap-tables';

/**
 * Player bitmaps of spans of days (docs/ledger.md, "Distinct players"): the OR of 4, 16 or 64 whole
 * days' bitmaps, without the game (020's all-games and 022's by-casino bitmaps), so a report of a
 * period not grouped by day ORs a few spans and the days at its edges instead of every day: at 30M a
 * month's report by casino OR-ed 23,400 bitmaps of 4,096 bits, and the whole data set 71,000.
 *
 * - ledger_rollup_player_spans: the spans built, [first_day, first_day + days); a span's first day is
 *   a multiple of its length from 2000-01-03, so two spans are either nested or disjoint.
 * - ledger_rollup_player_bits_{all_games,by_casino}_spans: their blocks, deleted with the span.
 *
 * Only the rollup job builds a span, from days counted whole, bitmapped and not stale. A span is
 * exactly the OR of its days' bitmaps as they stand: any write to a day's bitmaps or to its mark in
 * ledger_rollup_player_bits_days (a recount, an archiving's replacement, a backfill: each writes the
 * mark, even for a day without bets) deletes every span holding that day, by statement triggers in
 * the writer's own transaction, and the job builds it again. A reader uses a span only when every one
 * of its days is usable for its period (a takeover marks a day stale without touching its bitmaps).
 */
// Named one by one, not every table with spans: what this migration creates stays what it created.
const SPAN_TABLES = [PLAYER_BITMAPS.allGames, PLAYER_BITMAPS.byCasino].map(({ table, key, spans }) => ({
  days: table, spans, key: [...key, 'block'].join(', '), columns: columnDefinitions([...key, 'block']),
}));

/** The lengths of the spans, in days, longest first, and the day they are aligned from. */
export const SPAN_LENGTHS = [64, 16, 4] as const;
export const SPAN_EPOCH = '2000-01-03';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE ledger_rollup_player_spans (
      first_day date NOT NULL,
      days      integer NOT NULL CHECK (days IN (${SPAN_LENGTHS.join(', ')})),
      built_at  timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (first_day, days)
    );
    ${SPAN_TABLES.map(({ spans, key, columns }) => `
    CREATE TABLE ${spans} (
      first_day date NOT NULL,
      days      integer NOT NULL,
      ${columns},
      bits      bit(4096) NOT NULL,
      PRIMARY KEY (first_day, days, ${key}),
      FOREIGN KEY (first_day, days) REFERENCES ledger_rollup_player_spans ON DELETE CASCADE
    );`).join('\n')}

    -- The spans holding a day whose bitmaps a statement changed go, with their blocks.
    CREATE FUNCTION ledger_rollup_player_spans_forget() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      DELETE FROM ledger_rollup_player_spans s USING (SELECT DISTINCT day FROM changed) c
       WHERE c.day >= s.first_day AND c.day < s.first_day + s.days;
      RETURN NULL; END $$;
    -- An update: the days before and after it.
    CREATE FUNCTION ledger_rollup_player_spans_forget_updated() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      DELETE FROM ledger_rollup_player_spans s USING (SELECT day FROM changed_before UNION SELECT day FROM changed) c
       WHERE c.day >= s.first_day AND c.day < s.first_day + s.days;
      RETURN NULL; END $$;
    CREATE FUNCTION ledger_rollup_player_spans_forget_all() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      DELETE FROM ledger_rollup_player_spans;
      RETURN NULL; END $$;
    ${[...SPAN_TABLES.map((t) => t.days), 'ledger_rollup_player_bits_days'].map((days) => `
    CREATE TRIGGER ${days}_spans_added AFTER INSERT ON ${days}
      REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION ledger_rollup_player_spans_forget();
    CREATE TRIGGER ${days}_spans_removed AFTER DELETE ON ${days}
      REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION ledger_rollup_player_spans_forget();
    CREATE TRIGGER ${days}_spans_updated AFTER UPDATE ON ${days}
      REFERENCING OLD TABLE AS changed_before NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION ledger_rollup_player_spans_forget_updated();
    CREATE TRIGGER ${days}_spans_emptied AFTER TRUNCATE ON ${days}
      FOR EACH STATEMENT EXECUTE FUNCTION ledger_rollup_player_spans_forget_all();`).join('\n')}
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ${[...SPAN_TABLES.map((t) => t.days), 'ledger_rollup_player_bits_days'].map((days) => ['added', 'removed', 'updated', 'emptied'].map((e) => `DROP TRIGGER IF EXISTS ${days}_spans_${e} ON ${days};`).join('\n')).join('\n')}
    DROP FUNCTION IF EXISTS ledger_rollup_player_spans_forget(), ledger_rollup_player_spans_forget_updated(), ledger_rollup_player_spans_forget_all();
    ${SPAN_TABLES.map(({ spans }) => `DROP TABLE IF EXISTS ${spans};`).join('\n')}
    DROP TABLE IF EXISTS ledger_rollup_player_spans;
  `);
}
