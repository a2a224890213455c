import { AppError } from '@relay/shared';
import * as games from '../data/games';
import { findGameProvider } from '../data/gameProviders';
import type { GameRecord } from '../data/games';
import type { AdminDeps } from './deps';
import { groupNotFound } from './gameProviders';

export interface GameInput {
  name: string;
  groupId: string;
  frontendUrl: string;
  status: 'ACTIVE' | 'INACTIVE';
}

/** Registers or replaces a game; the launcher redirects only to the frontendUrl stored here. */
export async function saveGame(deps: AdminDeps, gameId: number, input: GameInput): Promise<GameRecord> {
  const game = await deps.db.transaction(async (trx) => {
    if (!(await findGameProvider(trx, input.groupId, 'share'))) throw groupNotFound(input.groupId);
    return games.upsertGame(trx, { gameId, ...input });
  });
  await deps.publishChange({ kind: 'game', key: String(gameId) });
  return game;
}

export async function getGame(deps: AdminDeps, gameId: number): Promise<GameRecord> {
  const game = await games.findGame(deps.db, gameId);
  if (!game) throw gameNotFound(gameId);
  return game;
}

export function listGames(deps: AdminDeps, filter: { groupId?: string }, page: number, limit: number): Promise<{ total: number; games: GameRecord[] }> {
  return games.listGames(deps.db, filter, page, limit);
}

export function gameNotFound(gameId: number): AppError {
  return new AppError('GAME_NOT_FOUND', `No game with gameId ${gameId}`);
}
