import { z } from 'zod';
import { AWARD_STATES } from '@relay/shared';
import { money, timestamp } from './schema';

/**
 * A free-round award as the back office and the game API answer it (@relay/shared free-rounds.ts,
 * presentAward). One schema for both documents.
 */
export const award = z
  .strictObject({
    providerId: z.string().meta({ description: 'The casino.' }),
    awardId: z.string().meta({ description: "The casino's own id of the award (its idempotency key)." }),
    campaignId: z.string().nullable(),
    playerId: z.string(),
    currency: z.string(),
    gameIds: z.array(z.number().int()).meta({ description: 'The games the rounds may be played in.' }),
    rounds: z.number().int().meta({ description: 'Rounds granted.' }),
    roundsPlayed: z.number().int(),
    roundsRemaining: z.number().int().meta({ description: 'Rounds still to play; 0 once the award is COMPLETED, EXPIRED or CANCELLED.' }),
    betValue: money.meta({ description: 'The bet of each round.' }),
    totalWon: money.meta({ description: 'What the played rounds won (0 until rounds are played through the relay, in a later release).' }),
    startsAt: timestamp,
    expiresAt: timestamp.meta({ description: 'Exclusive: from this instant the award reads EXPIRED.' }),
    state: z.enum(AWARD_STATES).meta({ description: '`ACTIVE` (nothing played yet), `IN_PROGRESS`, `COMPLETED`, `EXPIRED` (shown from `expiresAt` on, whatever was stored), `CANCELLED`.' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'FreeRoundAward' });

export const awardExample = {
  providerId: 'demo-casino',
  awardId: 'fr-2026-11-0042',
  campaignId: 'welcome-week',
  playerId: 'player-1001',
  currency: 'EUR',
  gameIds: [7001],
  rounds: 10,
  roundsPlayed: 0,
  roundsRemaining: 10,
  betValue: 0.5,
  totalWon: 0,
  startsAt: '2026-11-21T00:00:00.000Z',
  expiresAt: '2026-11-28T00:00:00.000Z',
  state: 'ACTIVE',
  createdAt: '2026-11-20T20:47:56.123Z',
  updatedAt: '2026-11-20T20:47:56.123Z',
};
