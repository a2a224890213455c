import type { Knex } from '@relay/shared';

export interface GameRecord {
  gameId: number;
  groupId: string;
  name: string;
  frontendUrl: string;
  status: 'ACTIVE' | 'INACTIVE';
  createdAt: Date;
  updatedAt: Date;
}

interface GameRow {
  game_id: number;
  group_id: string;
  name: string;
  frontend_url: string;
  status: 'ACTIVE' | 'INACTIVE';
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = ['game_id', 'group_id', 'name', 'frontend_url', 'status', 'created_at', 'updated_at'];

function toRecord(row: GameRow): GameRecord {
  return {
    gameId: row.game_id,
    groupId: row.group_id,
    name: row.name,
    frontendUrl: row.frontend_url,
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * `share` lets casino configs of one game be written side by side; `update` (a template change)
 * waits for them and holds them off, so a template is never checked against configs that change
 * under it.
 */
export async function findGame(db: Knex, gameId: number, lock?: 'share' | 'update'): Promise<GameRecord | null> {
  let query = db<GameRow>('games').select(COLUMNS).where({ game_id: gameId }).first();
  if (lock === 'share') query = query.forShare();
  if (lock === 'update') query = query.forUpdate();
  const row = (await query) as GameRow | undefined;
  return row ? toRecord(row) : null;
}

/** By game id; one game provider's games when groupId is given. */
export async function listGames(db: Knex, filter: { groupId?: string }, page: number, limit: number): Promise<{ total: number; games: GameRecord[] }> {
  const scoped = () => (filter.groupId !== undefined ? db('games').where({ group_id: filter.groupId }) : db('games'));
  const [{ count }] = (await scoped().count<{ count: string }[]>({ count: '*' })) as { count: string }[];
  const rows = (await scoped()
    .select(COLUMNS)
    .orderBy('game_id', 'asc')
    .limit(limit)
    .offset((page - 1) * limit)) as GameRow[];
  return { total: Number(count), games: rows.map(toRecord) };
}

export async function upsertGame(
  db: Knex,
  g: { gameId: number; groupId: string; name: string; frontendUrl: string; status: 'ACTIVE' | 'INACTIVE' },
): Promise<GameRecord> {
  const values = { group_id: g.groupId, name: g.name, frontend_url: g.frontendUrl, status: g.status };
  const [row] = (await db('games')
    .insert({ game_id: g.gameId, ...values })
    .onConflict('game_id')
    .merge({ ...values, updated_at: db.fn.now() })
    .returning(COLUMNS)) as GameRow[];
  return toRecord(row);
}
