import type { Knex } from '@relay/shared';
import { isoTimestamp, optionalNumber, optionalTimestamp, requiredNumber, withoutEmpty } from './format';
import { pagedList, withTimeout, type ListCriteria, type Page } from './pagedList';

/** A round record as reporting shows it (spec, Round). Fields with no value are absent. */
export interface Round {
  id: string;
  roundId: string;
  gameId: number;
  groupId: string;
  providerId: string;
  playerId: string;
  sessionId: string;
  currency: string;
  language: string;
  status: 'OPEN' | 'SETTLED';
  betAmount: number;
  betTransactionId: string;
  payoutAmount?: number;
  appliedMultiplier?: number;
  settleTransactionId?: string;
  settleReason?: string;
  outcome?: string;
  gameData?: unknown;
  settlementData?: unknown;
  openedAt: string;
  settledAt?: string;
  createdAt: string;
  updatedAt: string;
}

interface RoundRow {
  id: string;
  round_id: string;
  game_id: number;
  group_id: string;
  provider_id: string;
  player_id: string;
  session_id: string;
  currency: string;
  language: string;
  status: 'OPEN' | 'SETTLED';
  bet_amount: string;
  bet_transaction_id: string;
  payout_amount: string | null;
  applied_multiplier: string | null;
  settle_transaction_id: string | null;
  settle_reason: string | null;
  outcome: string | null;
  game_data: unknown;
  settlement_data: unknown;
  opened_at: Date;
  settled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** Named columns only: whatever else the table grows never leaks into a response by accident. */
const COLUMNS = [
  'id', 'round_id', 'game_id', 'group_id', 'provider_id', 'player_id', 'session_id', 'currency', 'language', 'status',
  'bet_amount', 'bet_transaction_id', 'payout_amount', 'applied_multiplier', 'settle_transaction_id', 'settle_reason',
  'outcome', 'game_data', 'settlement_data', 'opened_at', 'settled_at', 'created_at', 'updated_at',
] as const;

export const ROUND_SORT_COLUMNS = {
  createdAt: { column: 'created_at', nullable: false, type: 'timestamp' },
  openedAt: { column: 'opened_at', nullable: false, type: 'timestamp' },
  settledAt: { column: 'settled_at', nullable: true, type: 'timestamp' },
  betAmount: { column: 'bet_amount', nullable: false, type: 'numeric' },
  payoutAmount: { column: 'payout_amount', nullable: true, type: 'numeric' },
} as const;

export type RoundSortField = keyof typeof ROUND_SORT_COLUMNS;

export interface RoundFilters {
  gameId?: number;
  providerId?: string;
  playerId?: string;
  roundId?: string;
  currency?: string;
  status?: 'OPEN' | 'SETTLED';
}

const FILTER_COLUMNS: Record<keyof RoundFilters, string> = {
  gameId: 'game_id',
  providerId: 'provider_id',
  playerId: 'player_id',
  roundId: 'round_id',
  currency: 'currency',
  status: 'status',
};

export class RoundRepository {
  constructor(private readonly read: Knex) {}

  async list(groupId: string, filters: RoundFilters, criteria: Omit<ListCriteria, 'equals'>): Promise<Page<Round>> {
    const equals: Record<string, string | number> = {};
    for (const [name, value] of Object.entries(filters)) {
      if (value !== undefined) equals[FILTER_COLUMNS[name as keyof RoundFilters]] = value;
    }
    const page = await pagedList<RoundRow>(this.read, 'rounds', COLUMNS, groupId, { ...criteria, equals });
    return { ...page, rows: page.rows.map(toRound) };
  }

  /** The round of this casino and round id, if it belongs to the calling game provider. */
  async find(groupId: string, providerId: string, roundId: string): Promise<Round | null> {
    const rows = await withTimeout<RoundRow[]>(
      this.read('rounds').select(COLUMNS).where({ provider_id: providerId, round_id: roundId, group_id: groupId }).limit(1),
    );
    return rows.length ? toRound(rows[0]) : null;
  }
}

function toRound(row: RoundRow): Round {
  return withoutEmpty({
    id: row.id,
    roundId: row.round_id,
    gameId: row.game_id,
    groupId: row.group_id,
    providerId: row.provider_id,
    playerId: row.player_id,
    sessionId: row.session_id,
    currency: row.currency,
    language: row.language,
    status: row.status,
    betAmount: requiredNumber(row.bet_amount),
    betTransactionId: row.bet_transaction_id,
    payoutAmount: optionalNumber(row.payout_amount),
    appliedMultiplier: optionalNumber(row.applied_multiplier),
    settleTransactionId: row.settle_transaction_id ?? undefined,
    settleReason: row.settle_reason ?? undefined,
    outcome: row.outcome ?? undefined,
    gameData: row.game_data,
    settlementData: row.settlement_data,
    openedAt: isoTimestamp(row.opened_at),
    settledAt: optionalTimestamp(row.settled_at),
    createdAt: isoTimestamp(row.created_at),
    updatedAt: isoTimestamp(row.updated_at),
  });
}
