import { money, type MoneyValue } from '@relay/shared';
import Decimal from 'decimal.js';
import { CheckFailed, is2xx, type Kit } from '../kit';
import type { Reply } from '../wallet';
import { cents, fail, pass, refusedAndUnmoved, text, type Check, type Verdict } from './check';

/** Taking money: exactly the amount, once per transactionId however often and however fast it arrives. */
const DEBIT = money('1.23');
const CONCURRENT_DEBIT = money('2.00');
const RACES = 3;

export const debitChecks: Check[] = [
  {
    id: 'balance-read',
    required: true,
    sends: 'a balance read for the funded player',
    why: 'Every game starts from this balance; an answer the relay cannot read fails every game.',
    async run(kit) {
      const reply = await kit.send('balance', kit.balanceBody('funded'));
      const account = kit.accountIn(reply);
      if (!account) {
        // A refusal here is most often the config: the secret or the funded player's token.
        const hint = reply.status === 401 || reply.status === 403 ? '; check walletSecret and players.funded in the config' : '';
        return fail(`expected 2xx with a non-negative "balance" (a number or a numeric string)${hint}`, kit.describe(reply));
      }
      return pass(`balance ${text(account.exact)}`, kit.describe(reply));
    },
  },
  {
    id: 'debit-applies',
    required: true,
    needs: ['balance-read'],
    sends: `a debit of ${DEBIT.toFixed(2)} for the funded player`,
    why: 'The bet the game accepted must be exactly what the player lost, to the cent.',
    async run(kit) {
      const before = await kit.balanceOf('funded');
      const body = kit.debitBody('funded', DEBIT);
      const reply = await kit.send('debit', body);
      const verdict = await appliedExactly(kit, reply, cents(before.minus(DEBIT)));
      if (verdict.status === 'pass') kit.firstDebit = { body, reply, account: kit.accountIn(reply)! };
      return verdict;
    },
  },
  {
    id: 'debit-idempotent',
    required: true,
    needs: ['debit-applies'],
    sends: 'the same debit again, same transactionId',
    why: 'The relay repeats a debit whose answer it lost; applying it again takes the bet twice.',
    run: (kit) => repeatMovesNothing(kit, 'firstDebit'),
  },
  {
    id: 'debit-concurrent',
    required: true,
    needs: ['debit-idempotent'],
    sends: `two identical debits of ${CONCURRENT_DEBIT.toFixed(2)} (one transactionId) at the same moment, ${RACES} times`,
    why: 'A repeat can arrive while the first is in progress; check-then-write must be atomic.',
    async run(kit) {
      // A race window can be narrow: several tries, each over two connections opened beforehand,
      // so both debits leave at once.
      await Promise.all([kit.send('balance', kit.balanceBody('funded')), kit.send('balance', kit.balanceBody('funded'))]);
      let received = '';
      for (let race = 1; race <= RACES; race++) {
        const before = await kit.balanceOf('funded');
        const body = kit.debitBody('funded', CONCURRENT_DEBIT);
        const replies = await Promise.all([kit.send('debit', body), kit.send('debit', body)]);
        const after = await kit.balanceOf('funded');
        received = replies.map((r) => kit.describe(r)).join(' | ');
        const moved = before.minus(after);
        const expected = CONCURRENT_DEBIT.toFixed(2);
        if (!moved.eq(CONCURRENT_DEBIT)) return fail(`try ${race}: the balance moved by ${text(moved)} (${text(before)} to ${text(after)}); expected ${expected} once`, received);
        if (!replies.some(is2xx)) return fail(`try ${race}: neither debit was answered with 2xx`, received);
      }
      return pass(`each of ${RACES} pairs moved ${CONCURRENT_DEBIT.toFixed(2)} once`, received);
    },
  },
  {
    id: 'insufficient-funds',
    required: true,
    needs: ['balance-read'],
    sends: 'a debit of 1.00 more than the poor player holds (the funded player when the config has no poor one)',
    why: 'A 4xx refuses the bet; a 5xx means "unknown" and makes the relay refund a bet that never existed.',
    async run(kit): Promise<Verdict> {
      const role = kit.has('poor') ? 'poor' : 'funded';
      const amount = (await kit.balanceOf(role)).toDecimalPlaces(2, Decimal.ROUND_UP).plus(1);
      const verdict = await refusedAndUnmoved(kit, role, () => kit.send('debit', kit.debitBody(role, amount)));
      return { ...verdict, sent: `a debit of ${kit.amount(amount)} for the ${role} player` };
    },
  },
];

/** A 2xx whose answered balance, and the balance read after it, are `expected` to the cent. */
export async function appliedExactly(kit: Kit, reply: Reply, expected: MoneyValue): Promise<Verdict> {
  const received = kit.describe(reply);
  const account = kit.accountIn(reply);
  if (!account) return fail(`expected 2xx with the new balance, got ${reply.status ?? 'no answer'}`, received);
  const after = cents(await kit.balanceOf('funded'));
  if (!account.cents.eq(expected)) return fail(`answered balance ${text(account.cents)}, expected ${expected.toFixed(2)}`, received);
  if (!after.eq(expected)) return fail(`balance read afterwards is ${text(after)}, expected ${expected.toFixed(2)}`, received);
  return pass(`balance now ${expected.toFixed(2)}`, received);
}

/** The first call of `which` again: the first answer back, and no money moved. */
export async function repeatMovesNothing(kit: Kit, which: 'firstDebit' | 'firstCredit'): Promise<Verdict> {
  const first = kit[which];
  if (!first) throw new CheckFailed('the first call was not recorded');
  const before = await kit.balanceOf('funded');
  // A credit comes back through the relay's retry route flagged isRetry; the key is still the transactionId.
  const body = which === 'firstCredit' ? { ...first.body, isRetry: true } : first.body;
  const reply = await kit.send(which === 'firstDebit' ? 'debit' : 'credit', body);
  const after = await kit.balanceOf('funded');
  const received = kit.describe(reply);
  const account = kit.accountIn(reply);
  if (!after.eq(before)) return fail(`the repeat moved money: ${text(before)} to ${text(after)}`, received);
  if (!account) return fail(`expected 2xx with the first result, got ${reply.status ?? 'no answer'}`, received);
  if (!account.cents.eq(first.account.cents)) return fail(`answered balance ${text(account.cents)}; the first answer was ${text(first.account.cents)}`, received);
  return pass('same answer as the first call; nothing moved', received);
}
