import { AppError, money, newId, PLAYABLE_STATES, presentAward, toMoneyString, type Award, type AwardRow, type AwardState, type Knex } from '@relay/shared';
import { isPosition, type KeysetPosition } from '@relay/ledger';
import * as awards from '../data/freeRounds';
import { authorize, scopeFilter, type Caller, type ScopeColumns } from './access';
import { audited, type RequestFacts } from './audit';
import type { BackofficeDeps } from './deps';

/**
 * Free-round awards (issue 35, first slice): a casino's systems or its people grant a player a
 * number of rounds at a fixed bet value, read, list and cancel them. Whose awards a caller sees is
 * decided by scopeFilter alone: a casino its own, a studio those valid for one of its games.
 */
const SCOPE: ScopeColumns = { providerId: 'free_round_awards.provider_id', groupIds: 'free_round_awards.group_ids' };

/** How far ahead an award may expire. */
export const MAX_AWARD_DAYS = 30;
const DAY_MS = 86_400_000;

export interface AwardInput {
  awardId: string;
  campaignId?: string;
  playerId: string;
  currency: string;
  gameIds: number[];
  rounds: number;
  betValue: number;
  startsAt: Date;
  expiresAt: Date;
}

/**
 * The casino's award id is its idempotency key: the same award sent again answers the stored one
 * (`created: false`), and another award under that id is refused. A repeat is recognised before
 * the rules that depend on the time are checked, so a casino repeating a request late still learns
 * its award exists.
 */
export async function createAward(deps: BackofficeDeps, facts: RequestFacts, providerId: string, input: AwardInput): Promise<{ award: Award; created: boolean }> {
  authorize(facts.caller, 'free-rounds:manage');
  return audited<{ award: Award; created: boolean }>(deps, facts, 'free-round.create', async (trx) => {
    const casino = await scopeFilter(trx('casinos'), facts.caller.scope, { providerId: 'provider_id' }).where({ provider_id: providerId }).first('provider_id');
    if (!casino) throw new AppError('PROVIDER_NOT_FOUND', `No casino "${providerId}" in your scope`);
    const existing = await awards.readAward(trx, providerId, input.awardId, { lock: true });
    if (existing) return { result: { award: repeated(existing, input), created: false }, unchanged: true };

    checkPeriod(input, new Date());
    const groupIds = await checkGames(trx, providerId, input);
    const stored = await awards.insertAward(trx, {
      id: newId(),
      providerId,
      awardId: input.awardId,
      campaignId: input.campaignId ?? null,
      playerId: input.playerId,
      currency: input.currency,
      gameIds: [...input.gameIds].sort((x, y) => x - y),
      groupIds,
      rounds: input.rounds,
      betValue: toMoneyString(input.betValue),
      startsAt: input.startsAt,
      expiresAt: input.expiresAt,
    });
    // Another request created it in between: answered as a repeat.
    if (!stored) return { result: { award: repeated(await awards.readAward(trx, providerId, input.awardId, { lock: true }) as AwardRow, input), created: false }, unchanged: true };
    const award = presentAward(stored);
    return { result: { award, created: true }, target: awardTarget(providerId, input.awardId), before: null, after: award };
  });
}

export async function readAward(deps: BackofficeDeps, caller: Caller, providerId: string, awardId: string): Promise<Award> {
  authorize(caller, 'free-rounds:read');
  const row = await awards.readAward(deps.db, providerId, awardId, { scoped: (q) => scopeFilter(q, caller.scope, SCOPE) });
  if (!row) throw notFound(providerId, awardId);
  return presentAward(row);
}

/**
 * Cancelling ends the rounds not yet played (none are, in this slice). A cancelled award cancelled
 * again answers as it is; a completed or expired one cannot be cancelled.
 */
export async function cancelAward(deps: BackofficeDeps, facts: RequestFacts, providerId: string, awardId: string): Promise<Award> {
  authorize(facts.caller, 'free-rounds:manage');
  return audited(deps, facts, 'free-round.cancel', async (trx) => {
    const row = await awards.readAward(trx, providerId, awardId, { scoped: (q) => scopeFilter(q, facts.caller.scope, SCOPE), lock: true });
    if (!row) throw notFound(providerId, awardId);
    const before = presentAward(row);
    if (row.state === 'CANCELLED') return { result: before, unchanged: true };
    if (!PLAYABLE_STATES.includes(row.state)) throw new AppError('STATE_CONFLICT', `The award is ${row.state}: only an ACTIVE or IN_PROGRESS award can be cancelled`);
    const after = presentAward(await awards.cancelAward(trx, providerId, awardId));
    return { result: after, target: awardTarget(providerId, awardId), before, after };
  });
}

export interface AwardListQuery {
  providerId?: string;
  playerId?: string;
  campaignId?: string;
  state?: AwardState;
  limit: number;
  cursor?: string;
}

/** Newest first, walked by cursor. */
export async function listAwards(deps: BackofficeDeps, caller: Caller, query: AwardListQuery): Promise<{ awards: Award[]; nextCursor: string | null }> {
  authorize(caller, 'free-rounds:read');
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const page = await awards.listAwards(deps.db, scopeFilter(awards.awardsQuery(deps.db), caller.scope, SCOPE), query, query.limit, after);
  return { awards: page.rows.map(presentAward), nextCursor: page.next && Buffer.from(JSON.stringify([page.next.key, page.next.id])).toString('base64url') };
}

function decodeCursor(text: string): KeysetPosition {
  try {
    const [key, id] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown[];
    if (isPosition(key, id, awards.AWARD_SORT)) return { key: key as string, id: id as string };
  } catch {
    // falls through to the refusal
  }
  throw new AppError('Bad Request', 'Validation failed: cursor: not a cursor this list answered', { details: [{ path: 'cursor', message: 'is not a cursor of this list' }] });
}

/** Expiry after the start, still ahead, and at most MAX_AWARD_DAYS ahead. */
function checkPeriod(input: AwardInput, now: Date): void {
  const refuse = (message: string, path: string) => {
    throw new AppError('INVALID_AWARD_PERIOD', message, { details: [{ path, message }] });
  };
  if (input.expiresAt.getTime() <= input.startsAt.getTime()) refuse('expiresAt must be after startsAt', 'expiresAt');
  if (input.expiresAt.getTime() <= now.getTime()) refuse('expiresAt has already passed', 'expiresAt');
  if (input.expiresAt.getTime() > now.getTime() + MAX_AWARD_DAYS * DAY_MS) refuse(`expiresAt must be at most ${MAX_AWARD_DAYS} days ahead`, 'expiresAt');
}

/**
 * Each game must be registered, configured by the casino (a currency config in some currency),
 * configured in the award's currency, and allow the bet value within its min and max bet. Returns
 * the games' providers, which a studio's reads are filtered by.
 */
async function checkGames(db: Knex, providerId: string, input: AwardInput): Promise<string[]> {
  const limits = await awards.gameLimits(db, providerId, input.currency, input.gameIds);
  const bet = money(input.betValue);
  for (const [i, gameId] of input.gameIds.entries()) {
    const path = `gameIds.${i}`;
    const game = limits.get(gameId);
    if (!game) throw new AppError('GAME_NOT_FOUND', `No game ${gameId}`, { details: [{ path, message: 'is not a registered game' }] });
    if (!game.configured) throw new AppError('GAME_NOT_CONFIGURED', `Casino "${providerId}" has not configured game ${gameId}`, { details: [{ path, message: 'is not configured by the casino' }] });
    if (game.minBet === null || game.maxBet === null) {
      throw new AppError('CURRENCY_NOT_CONFIGURED', `Casino "${providerId}" has no ${input.currency} config for game ${gameId}`, { details: [{ path, message: `has no ${input.currency} config` }] });
    }
    if (bet.lt(game.minBet) || bet.gt(game.maxBet)) {
      const message = `betValue must be between ${game.minBet} and ${game.maxBet} ${input.currency} for game ${gameId}`;
      throw new AppError('BET_VALUE_OUT_OF_LIMITS', message, { details: [{ path: 'betValue', message }] });
    }
  }
  return [...new Set([...limits.values()].map((g) => g.groupId))].sort();
}

/** The stored award when `input` is the same award, else AWARD_ID_REUSED. */
function repeated(row: AwardRow, input: AwardInput): Award {
  const ids = [...input.gameIds].sort((x, y) => x - y);
  const same =
    row.campaign_id === (input.campaignId ?? null) &&
    row.player_id === input.playerId &&
    row.currency === input.currency &&
    row.game_ids.length === ids.length &&
    row.game_ids.every((g, i) => g === ids[i]) &&
    row.rounds === input.rounds &&
    money(row.bet_value).eq(money(input.betValue)) &&
    row.starts_at.getTime() === input.startsAt.getTime() &&
    row.expires_at.getTime() === input.expiresAt.getTime();
  if (!same) throw new AppError('AWARD_ID_REUSED', `Award "${input.awardId}" exists with other values; an award id names one award`);
  return presentAward(row);
}

function awardTarget(providerId: string, awardId: string): string {
  return `free-round-award:${providerId}/${awardId}`;
}

function notFound(providerId: string, awardId: string): AppError {
  return new AppError('AWARD_NOT_FOUND', `No award "${awardId}" of casino "${providerId}" in your scope`);
}
