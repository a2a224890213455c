import { randomUUID } from 'node:crypto';
import { interpretCasinoAnswer } from '@relay/shared';
import { is2xx, is4xx } from '../kit';
import { fail, pass, refusedAndUnmoved, type Check } from './check';

/** Who may move money: only the relay (signature, fresh timestamp) and only for a known player's live token. */
const STALE_SECONDS = 6 * 60;

export const accessChecks: Check[] = [
  {
    id: 'signature-refused',
    required: true,
    needs: ['balance-read'],
    sends: 'a debit of 1.00 for the funded player signed with a wrong secret',
    why: "Without it anyone who finds the wallet URL can move any player's money.",
    run: (kit) => refusedAndUnmoved(kit, 'funded', () => kit.send('debit', kit.debitBody('funded', '1.00'), { secret: `wrong-${randomUUID()}` })),
  },
  {
    id: 'timestamp-stale',
    required: true,
    needs: ['balance-read'],
    sends: 'a debit of 1.00, correctly signed, with a timestamp six minutes old',
    why: 'A captured request replayed later must not move money again.',
    run: (kit) =>
      refusedAndUnmoved(kit, 'funded', () => kit.send('debit', kit.debitBody('funded', '1.00'), { timestamp: Math.floor(Date.now() / 1000) - STALE_SECONDS })),
  },
  {
    id: 'token-expired',
    required: true,
    player: 'expired',
    sends: "a balance read with the expired player's walletToken",
    why: 'Only TOKEN_EXPIRED or 401 tells the game the session is over; anything else looks like an outage.',
    async run(kit) {
      const reply = await kit.send('balance', kit.balanceBody('expired'));
      const received = kit.describe(reply);
      if (reply.status === undefined) return fail('no answer', received);
      const verdict = interpretCasinoAnswer('balance', reply.status, reply.text);
      if (!verdict.ok && verdict.error.code === 'AUTHENTICATION_TOKEN_EXPIRED') return pass(`refused with ${reply.status} as an expired token`, received);
      if (is2xx(reply)) return fail(`accepted the expired token with ${reply.status}`, received);
      return fail(`expected 401 or a 4xx with {"error":"TOKEN_EXPIRED"}, got ${reply.status}`, received);
    },
  },
  {
    id: 'unknown-player',
    required: true,
    sends: 'a balance read for a playerId the casino has never seen',
    why: 'A wallet that opens accounts on the fly lets a forged playerId play.',
    async run(kit) {
      const stranger = { playerId: `${kit.runId}-unknown-player`, walletToken: `unknown-${randomUUID()}` };
      const reply = await kit.send('balance', kit.balanceBody('funded', stranger));
      const received = kit.describe(reply);
      return is4xx(reply) ? pass(`refused with ${reply.status}`, received) : fail(`expected a 4xx, got ${reply.status ?? 'no answer'}`, received);
    },
  },
];
