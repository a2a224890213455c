import { money, type MoneyValue } from '@relay/shared';
import type { PlayerRole } from '../config';
import { is4xx, type Kit } from '../kit';
import type { Reply } from '../wallet';

/**
 * One rule of the wallet protocol the kit verifies. `needs`: checks that must pass first (a
 * repeat of a debit that never applied proves nothing), so one broken rule fails one check and
 * the checks built on it are reported as skipped, not failed again.
 */
export type CheckStatus = 'pass' | 'fail' | 'skipped';

export interface Verdict {
  status: CheckStatus;
  detail: string;
  /** What came back; what was sent when it differs from the check's description. */
  received?: string;
  sent?: string;
}

export interface Check {
  id: string;
  required: boolean;
  /** What the check sends, for the report. */
  sends: string;
  /** Why a casino must get this right. */
  why: string;
  needs?: string[];
  /** A player the config may leave out; the check is skipped without it. */
  player?: Exclude<PlayerRole, 'funded'>;
  run(kit: Kit): Promise<Verdict>;
}

export const pass = (detail: string, received?: string): Verdict => ({ status: 'pass', detail, ...(received !== undefined ? { received } : {}) });
export const fail = (detail: string, received?: string): Verdict => ({ status: 'fail', detail, ...(received !== undefined ? { received } : {}) });
export const skip = (detail: string): Verdict => ({ status: 'skipped', detail });

/** Rounded half-up to cents, as the relay reads a balance. */
export const cents = (value: MoneyValue): MoneyValue => value.toDecimalPlaces(2);
export const text = (value: MoneyValue): string => value.toString();

/**
 * The shape of every "refused and moves nothing" rule: read the balance, send the request that
 * must be refused, read the balance again. A 4xx that still moved money is a failure too.
 */
export async function refusedAndUnmoved(kit: Kit, role: PlayerRole, send: () => Promise<Reply>): Promise<Verdict> {
  const before = await kit.balanceOf(role);
  const reply = await send();
  const after = await kit.balanceOf(role);
  const received = kit.describe(reply);
  const moved = after.eq(before) ? '' : `; the balance moved from ${text(before)} to ${text(after)}`;
  if (!is4xx(reply)) return fail(`expected a 4xx refusal, got ${reply.status ?? 'no answer'}${moved}`, received);
  if (moved) return fail(`refused with ${reply.status}${moved}`, received);
  return pass(`refused with ${reply.status}; balance unchanged at ${text(before)}`, received);
}

export const ZERO = money(0);
