import { z } from 'zod';
import { awardBody, awardCasinoPath, awardListQuery, awardPath, MAX_AWARD_ROUNDS } from '@relay/backoffice';
import { award, awardExample } from '../free-rounds';
import type { BackofficeOperation } from './operation';

/** Free-round awards (issue 35): created, read, listed and cancelled by a casino's systems and people. */

const PARAMS: Record<string, string> = {
  providerId: 'The casino (on the list: only this casino).',
  awardId: "The casino's own id of the award.",
  playerId: 'Only awards of this player.',
  campaignId: 'Only awards of this campaign.',
  state: 'Only awards in this state, as shown (an award past its expiry is `EXPIRED`).',
  limit: 'Rows per page, 1 to 500 (default 100).',
  cursor: '`meta.nextCursor` of the previous page, with the same filters.',
};
const bodyExample = {
  awardId: awardExample.awardId, campaignId: awardExample.campaignId, playerId: awardExample.playerId, currency: 'EUR', gameIds: [7001], rounds: 10, betValue: 0.5,
  startsAt: awardExample.startsAt, expiresAt: awardExample.expiresAt,
};
const listMeta = z.strictObject({ nextCursor: z.string().nullable().meta({ description: 'Pass as `cursor` (with the same filters) for the next page; null on the last page.' }) });

export const freeRoundOperations: BackofficeOperation[] = [
  {
    method: 'post', path: '/backoffice/v1/casinos/{providerId}/free-rounds', operationId: 'createFreeRoundAward', tag: 'Free rounds', access: 'token-write', parameterText: PARAMS, permission: 'free-rounds:manage',
    summary: 'Create a free-round award',
    description: `Grants a player \`rounds\` rounds (1 to ${MAX_AWARD_ROUNDS}) at \`betValue\` each, in \`currency\`, in any of \`gameIds\`, from \`startsAt\` until \`expiresAt\` (after the start, still ahead, at most 30 days from now: else \`INVALID_AWARD_PERIOD\`). Each game must be registered (\`GAME_NOT_FOUND\`), configured by the casino (a currency config in any currency: \`GAME_NOT_CONFIGURED\`) and in \`currency\` (\`CURRENCY_NOT_CONFIGURED\`), with \`betValue\` within that config's min and max bet (\`BET_VALUE_OUT_OF_LIMITS\`). \`awardId\` is the casino's idempotency key: the same award sent again answers \`200\` with the stored award and changes nothing; another award under the same id is \`409 AWARD_ID_REUSED\`. Audited. Play consumes the award's rounds only when the casino's free-rounds mode is \`managed\` (set through the admin API); in \`passthrough\` (the default) freebet credits are relayed unchecked and the award is not consumed.`,
    path_: awardCasinoPath, body: { schema: awardBody, example: bodyExample },
    ok: { status: 201, message: 'Award created', data: award, example: awardExample },
    alsoOk: { status: 200, message: 'Award exists already; nothing was changed' },
    errors: { 400: ['INVALID_AWARD_PERIOD', 'GAME_NOT_CONFIGURED', 'CURRENCY_NOT_CONFIGURED', 'BET_VALUE_OUT_OF_LIMITS'], 404: ['PROVIDER_NOT_FOUND', 'GAME_NOT_FOUND'], 409: ['AWARD_ID_REUSED'] },
  },
  {
    method: 'get', path: '/backoffice/v1/casinos/{providerId}/free-rounds/{awardId}', operationId: 'getFreeRoundAward', tag: 'Free rounds', access: 'read', parameterText: PARAMS, permission: 'free-rounds:read',
    summary: 'One free-round award', description: 'A studio sees an award valid for one of its games; an award outside the caller\'s scope is answered like a missing one.',
    path_: awardPath,
    ok: { message: 'Award fetched successfully', data: award, example: awardExample }, errors: { 404: ['AWARD_NOT_FOUND'] },
  },
  {
    method: 'post', path: '/backoffice/v1/casinos/{providerId}/free-rounds/{awardId}/cancel', operationId: 'cancelFreeRoundAward', tag: 'Free rounds', access: 'token-write', parameterText: PARAMS, permission: 'free-rounds:manage',
    summary: 'Cancel a free-round award',
    description: 'An `ACTIVE` or `IN_PROGRESS` award becomes `CANCELLED`: the rounds not yet played are forfeited, played ones stay settled. Cancelling a cancelled award answers it as it is; a `COMPLETED` or `EXPIRED` one is `409 STATE_CONFLICT`. Audited.',
    path_: awardPath,
    ok: { message: 'Award cancelled', data: award, example: { ...awardExample, state: 'CANCELLED', roundsRemaining: 0 } }, errors: { 404: ['AWARD_NOT_FOUND'], 409: ['STATE_CONFLICT'] },
  },
  {
    method: 'get', path: '/backoffice/v1/free-rounds', operationId: 'listFreeRoundAwards', tag: 'Free rounds', access: 'read', parameterText: PARAMS, permission: 'free-rounds:read',
    summary: 'List free-round awards',
    description: 'Newest first, in the caller\'s scope (a casino its own, a studio those valid for one of its games), filtered by casino, player, campaign and state; walk with `meta.nextCursor`.',
    query: awardListQuery,
    ok: { message: 'Awards fetched successfully', data: z.array(award), example: [awardExample], meta: { schema: listMeta, example: { nextCursor: null } } },
  },
];
