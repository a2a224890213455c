import { roundBalance } from '@relay/shared';
import type { TestPlatform } from '../../platform';
import type { GameWorld } from '../../game';
import { SETTLES_A_BET, type CashInReason } from '../../../services/wallet/src/domain/cash-in-reasons';

/**
 * The invariants of a money system, checked against what the relay recorded and what the sandbox
 * casino actually did. Both return what they compared, for the reliability record.
 */

interface TransactionRow {
  transaction_id: string;
  category: 'CASH_OUT' | 'CASH_IN';
  status: 'PENDING' | 'SUCCESS' | 'FAILED';
  player_id: string;
  round_id: string;
  amount: string;
  balance: string | null;
  reason: string | null;
}

interface RoundRow {
  round_id: string;
  player_id: string;
  status: 'OPEN' | 'SETTLED';
  bet_amount: string;
  bet_transaction_id: string;
  payout_amount: string | null;
  settle_transaction_id: string | null;
  settle_reason: string | null;
}

const cents = (value: string | number | null | undefined) => (value === null || value === undefined ? null : Math.round(Number(value) * 100));

/**
 * Per transactionId of the world's casino: the relay's SUCCESS rows and the sandbox journal agree
 * exactly (operation, amount, player, round, the balance the casino answered), every casino movement
 * has its SUCCESS row (none lost), none is in the journal twice (none applied twice), and no
 * transaction is left PENDING. Fails the test with every disagreement listed.
 */
export async function checkLedgerAgreement(p: TestPlatform, g: GameWorld): Promise<{ transactions: number; movements: number }> {
  const rows: TransactionRow[] = await p.db
    .primary('transactions')
    .where({ provider_id: g.providerId })
    .select('transaction_id', 'category', 'status', 'player_id', 'round_id', 'amount', 'balance', 'reason');
  const journal = g.sandbox.journal({ providerId: g.providerId });
  const problems: string[] = [];

  const movements = new Map<string, (typeof journal)[number]>();
  for (const entry of journal) {
    if (movements.has(entry.transactionId)) problems.push(`${entry.transactionId}: applied twice at the casino`);
    movements.set(entry.transactionId, entry);
  }
  const byId = new Map(rows.map((r) => [r.transaction_id, r]));

  for (const row of rows) {
    const id = row.transaction_id;
    if (row.status === 'PENDING') problems.push(`${id}: left PENDING`);
    const entry = movements.get(id);
    if (row.status !== 'SUCCESS') continue;
    if (!entry) {
      problems.push(`${id}: SUCCESS at the relay, but the casino never moved the money`);
      continue;
    }
    const operation = row.category === 'CASH_OUT' ? 'debit' : 'credit';
    if (entry.operation !== operation) problems.push(`${id}: relay ${row.category}, casino ${entry.operation}`);
    if (cents(row.amount) !== cents(entry.amount)) problems.push(`${id}: relay amount ${row.amount}, casino ${entry.amount}`);
    if (row.player_id !== entry.playerId) problems.push(`${id}: relay player ${row.player_id}, casino ${entry.playerId}`);
    if (row.round_id !== entry.roundId) problems.push(`${id}: relay round ${row.round_id}, casino ${entry.roundId}`);
    const answered = roundBalance(entry.balanceAfter)?.toNumber();
    if (cents(row.balance) !== cents(answered)) problems.push(`${id}: relay balance ${row.balance}, casino balance after it ${entry.balanceAfter}`);
  }
  for (const entry of journal) {
    const row = byId.get(entry.transactionId);
    if (!row) problems.push(`${entry.transactionId}: moved at the casino, unknown to the relay`);
    else if (row.status !== 'SUCCESS') problems.push(`${entry.transactionId}: moved at the casino, ${row.status} at the relay (lost)`);
  }
  expect(problems).toEqual([]);
  return { transactions: rows.length, movements: journal.length };
}

/**
 * Every round agrees with its transactions: opened by a SUCCESS debit of its stake, SETTLED only by
 * a SUCCESS settling credit of its payout, OPEN only while no settling credit succeeded; and every
 * SUCCESS debit opened its round (the suites never reuse a roundId for a second bet).
 */
export async function checkRoundsConsistent(p: TestPlatform, g: GameWorld): Promise<{ rounds: number }> {
  const [rounds, rows] = await Promise.all([
    p.db
      .primary('rounds')
      .where({ provider_id: g.providerId })
      .select<RoundRow[]>('round_id', 'player_id', 'status', 'bet_amount', 'bet_transaction_id', 'payout_amount', 'settle_transaction_id', 'settle_reason'),
    p.db.primary('transactions').where({ provider_id: g.providerId }).select<TransactionRow[]>('transaction_id', 'category', 'status', 'player_id', 'round_id', 'amount', 'reason'),
  ]);
  const problems: string[] = [];
  const success = new Map(rows.filter((r) => r.status === 'SUCCESS').map((r) => [r.transaction_id, r]));
  const settles = (r: TransactionRow) => r.category === 'CASH_IN' && SETTLES_A_BET.has(r.reason as CashInReason);
  const roundIds = new Set(rounds.map((r) => r.round_id));

  for (const round of rounds) {
    const id = round.round_id;
    const bet = success.get(round.bet_transaction_id);
    if (!bet || bet.category !== 'CASH_OUT') problems.push(`${id}: opened without a SUCCESS debit ${round.bet_transaction_id}`);
    else {
      if (bet.round_id !== id) problems.push(`${id}: its debit belongs to round ${bet.round_id}`);
      if (cents(bet.amount) !== cents(round.bet_amount)) problems.push(`${id}: stake ${round.bet_amount}, debit ${bet.amount}`);
      if (bet.player_id !== round.player_id) problems.push(`${id}: player ${round.player_id}, debit by ${bet.player_id}`);
    }
    const settledBy = rows.filter((r) => r.status === 'SUCCESS' && r.round_id === id && settles(r));
    if (round.status === 'SETTLED') {
      const credit = round.settle_transaction_id ? success.get(round.settle_transaction_id) : undefined;
      if (!credit || !settles(credit) || credit.round_id !== id) problems.push(`${id}: SETTLED without its SUCCESS settling credit`);
      else {
        if (cents(credit.amount) !== cents(round.payout_amount)) problems.push(`${id}: payout ${round.payout_amount}, credit ${credit.amount}`);
        if (credit.reason !== round.settle_reason) problems.push(`${id}: settle reason ${round.settle_reason}, credit ${credit.reason}`);
      }
    } else if (settledBy.length > 0) {
      problems.push(`${id}: OPEN although ${settledBy.map((r) => r.transaction_id).join(', ')} settled it`);
    }
  }
  for (const row of success.values()) {
    if (row.category === 'CASH_OUT' && !roundIds.has(row.round_id)) problems.push(`${row.transaction_id}: SUCCESS debit without its round ${row.round_id}`);
  }
  expect(problems).toEqual([]);
  return { rounds: rounds.length };
}
