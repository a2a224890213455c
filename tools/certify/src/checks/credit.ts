import { money } from '@relay/shared';
import { CheckFailed, is2xx } from '../kit';
import { cents, fail, pass, text, type Check } from './check';
import { appliedExactly, repeatMovesNothing } from './debit';

/** Paying out: exactly the amount, once per transactionId, a 0 loss accepted; and exact arithmetic. */
const CREDIT = money('1.23');
const STEP = money('0.10');
const STEPS = 10;
const LOST_BET = money('1.00');

export const creditChecks: Check[] = [
  {
    id: 'credit-applies',
    required: true,
    needs: ['debit-applies'],
    sends: `a credit of ${CREDIT.toFixed(2)} (NORMAL_WIN) settling the debit of debit-applies`,
    why: 'A win must reach the player exactly, to the cent.',
    async run(kit) {
      const before = await kit.balanceOf('funded');
      const body = kit.creditBody(kit.firstDebit!.body, CREDIT);
      const reply = await kit.send('credit', body);
      const verdict = await appliedExactly(kit, reply, cents(before.plus(CREDIT)));
      if (verdict.status === 'pass') kit.firstCredit = { body, reply, account: kit.accountIn(reply)! };
      return verdict;
    },
  },
  {
    id: 'credit-idempotent',
    required: true,
    needs: ['credit-applies'],
    sends: 'the same credit again, same transactionId, flagged isRetry as the relay retries it',
    why: 'Credits are repeated until answered, for days; paying twice loses money.',
    run: (kit) => repeatMovesNothing(kit, 'firstCredit'),
  },
  {
    id: 'credit-zero',
    required: true,
    needs: ['debit-applies'],
    sends: `a bet of ${LOST_BET.toFixed(2)}, then a credit of 0 with reason BET_LOST settling it`,
    why: 'A lost bet is settled by a credit of 0; refusing it leaves the round open forever.',
    async run(kit) {
      const bet = kit.debitBody('funded', LOST_BET);
      const placed = await kit.send('debit', bet);
      if (!is2xx(placed)) throw new CheckFailed(`the bet was not accepted: ${placed.status ?? 'no answer'}`, kit.describe(placed));
      const before = await kit.balanceOf('funded');
      const reply = await kit.send('credit', kit.creditBody(bet, '0', 'BET_LOST'));
      const after = await kit.balanceOf('funded');
      const received = kit.describe(reply);
      if (!is2xx(reply)) return fail(`expected 2xx, got ${reply.status ?? 'no answer'}`, received);
      if (!after.eq(before)) return fail(`the balance moved from ${text(before)} to ${text(after)}`, received);
      return pass('accepted; nothing moved', received);
    },
  },
  {
    id: 'round-ended',
    required: true,
    sends: 'a round-ended notification {providerId, groupId, roundId}',
    why: 'Closes the round at the casino; an error is retried and reported as undelivered.',
    async run(kit) {
      const body = { providerId: kit.config.providerId, groupId: `${kit.runId}-group`, roundId: kit.firstDebit?.body.roundId ?? kit.newId('round') };
      const reply = await kit.send('round-ended', body);
      const received = kit.describe(reply);
      return is2xx(reply) ? pass(`accepted with ${reply.status}`, received) : fail(`expected 2xx, got ${reply.status ?? 'no answer'}`, received);
    },
  },
  {
    id: 'decimals',
    required: true,
    needs: ['debit-applies', 'credit-applies'],
    sends: `${STEPS} debits of ${STEP.toFixed(2)}, then a credit of ${STEP.times(STEPS).toFixed(2)} settling the last`,
    why: 'Binary floating point drifts by fractions of a cent that never reconcile.',
    async run(kit) {
      const before = await kit.balanceOf('funded');
      const bets = Array.from({ length: STEPS }, () => kit.debitBody('funded', STEP));
      for (const [i, bet] of bets.entries()) {
        const reply = await kit.send('debit', bet);
        if (!is2xx(reply)) return fail(`debit ${i + 1} of ${STEPS} answered ${reply.status ?? 'no answer'}`, kit.describe(reply));
      }
      // The last bet wins ten times its stake: the run gives back exactly what it took.
      const reply = await kit.send('credit', kit.creditBody(bets[STEPS - 1], STEP.times(STEPS)));
      if (!is2xx(reply)) return fail(`the credit answered ${reply.status ?? 'no answer'}`, kit.describe(reply));
      const after = await kit.balanceOf('funded');
      const received = `balance ${text(before)} before, ${text(after)} after`;
      return after.eq(before) ? pass('the balance came back exactly', received) : fail(`the balance is ${text(after)}, not exactly ${text(before)}`, received);
    },
  },
];
