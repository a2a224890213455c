import { randomUUID } from 'node:crypto';
import type { Knex } from '@relay/shared';
import { http, uniqueId, type TestPlatform } from '../../../test/platform';

/**
 * Reporting test data. Rounds and transactions are written straight into the primary, the way
 * the wallet writes them (reporting itself never writes); ids are unique per call so test files
 * share the database safely.
 */

export type Row = Record<string, unknown>;

export interface RoundSeed {
  groupId: string;
  providerId: string;
  roundId?: string;
  gameId?: number;
  playerId?: string;
  currency?: string;
  status?: 'OPEN' | 'SETTLED';
  betAmount?: string;
  payoutAmount?: string | null;
  createdAt?: Date | string;
  openedAt?: Date | string;
  settledAt?: Date | string | null;
  gameData?: unknown;
  settlementData?: unknown;
}

export async function insertRound(db: Knex, seed: RoundSeed): Promise<Row> {
  const createdAt = seed.createdAt ?? new Date();
  const settled = (seed.status ?? 'SETTLED') === 'SETTLED';
  const row = {
    id: randomUUID(),
    provider_id: seed.providerId,
    round_id: seed.roundId ?? uniqueId('round'),
    group_id: seed.groupId,
    game_id: seed.gameId ?? 1,
    player_id: seed.playerId ?? 'player-1',
    session_id: uniqueId('sess'),
    currency: seed.currency ?? 'EUR',
    language: 'en',
    status: settled ? 'SETTLED' : 'OPEN',
    bet_amount: seed.betAmount ?? '10.00',
    bet_transaction_id: uniqueId('bet'),
    payout_amount: settled ? (seed.payoutAmount === undefined ? '20.50' : seed.payoutAmount) : null,
    applied_multiplier: settled ? '2.05' : null,
    settle_transaction_id: settled ? uniqueId('win') : null,
    settle_reason: settled ? 'NORMAL_WIN' : null,
    outcome: settled ? 'win' : null,
    game_data: seed.gameData === undefined ? null : JSON.stringify(seed.gameData),
    settlement_data: settled && seed.settlementData !== undefined ? JSON.stringify(seed.settlementData) : null,
    opened_at: seed.openedAt ?? createdAt,
    settled_at: settled ? (seed.settledAt === undefined ? createdAt : seed.settledAt) : null,
    created_at: createdAt,
    updated_at: createdAt,
  };
  await db('rounds').insert(row);
  return row;
}

export interface TransactionSeed {
  groupId: string;
  providerId: string;
  transactionId?: string;
  roundId?: string;
  gameId?: number;
  playerId?: string;
  currency?: string;
  category?: 'CASH_OUT' | 'CASH_IN';
  status?: 'PENDING' | 'SUCCESS' | 'FAILED';
  amount?: string;
  balance?: string | null;
  previousTransactionId?: string | null;
  isRetry?: boolean;
  createdAt?: Date | string;
  completedAt?: Date | string | null;
}

export async function insertTransaction(db: Knex, seed: TransactionSeed): Promise<Row> {
  const createdAt = seed.createdAt ?? new Date();
  const category = seed.category ?? 'CASH_OUT';
  const status = seed.status ?? 'SUCCESS';
  const row = {
    id: randomUUID(),
    provider_id: seed.providerId,
    transaction_id: seed.transactionId ?? uniqueId('tx'),
    previous_transaction_id: seed.previousTransactionId ?? null,
    category,
    status,
    group_id: seed.groupId,
    game_id: seed.gameId ?? 1,
    player_id: seed.playerId ?? 'player-1',
    session_id: uniqueId('sess'),
    round_id: seed.roundId ?? uniqueId('round'),
    amount: seed.amount ?? '10.00',
    currency: seed.currency ?? 'EUR',
    language: 'en',
    reason: category === 'CASH_IN' ? 'NORMAL_WIN' : null,
    applied_multiplier: category === 'CASH_IN' ? '2.5' : null,
    bet_amount: category === 'CASH_IN' ? '4.00' : null,
    is_retry: seed.isRetry ?? false,
    balance: status === 'SUCCESS' ? (seed.balance === undefined ? '990.10' : seed.balance) : null,
    username: 'Secret Username',
    error_code: status === 'FAILED' ? 'PROVIDER_API_FAILURE' : null,
    error_message: status === 'FAILED' ? 'Casino answered 500' : null,
    request_fingerprint: 'fingerprint-not-for-reporting',
    completed_at: status === 'PENDING' ? null : (seed.completedAt === undefined ? createdAt : seed.completedAt),
    created_at: createdAt,
    updated_at: createdAt,
    claimed_at: createdAt,
  };
  await db('transactions').insert(row);
  return row;
}

/** GET through the gateway with a game provider token. */
export function get(p: TestPlatform, path: string, token: string) {
  return http('GET', `${p.baseUrl}${path}`, { token });
}

/** A timestamp with microseconds, as PostgreSQL stores them: the API only ever shows the milliseconds. */
export function micro(iso: string, micros: number): string {
  return iso.replace('Z', `${String(micros).padStart(3, '0')}Z`);
}
