import { money, type MoneyValue } from '@relay/shared';
import { CHECKS, type Check, type CheckStatus } from './checks';
import { SetupError, type CertifyConfig, type PlayerRole } from './config';
import { CheckFailed, is2xx, Kit } from './kit';
import { WalletLine } from './wallet';

/**
 * One certification run: make sure the wallet answers and the funded player can afford the
 * checks, run every check in order, then put each test player's balance back where it was.
 */
export interface CheckReport {
  id: string;
  required: boolean;
  status: CheckStatus;
  detail: string;
  sent: string;
  received: string;
  why: string;
}

export interface BalanceNote {
  player: PlayerRole;
  before: string;
  after: string;
  /** True when the balance ends as found, to the cent. */
  restored: boolean;
}

export interface Report {
  runId: string;
  providerId: string;
  startedAt: string;
  durationMs: number;
  checks: CheckReport[];
  balances: BalanceNote[];
  /** 0: every required check passed; 1: a required check failed. */
  exitCode: 0 | 1;
}

/** The funded player must afford every debit of the run with room to spare. */
export const MIN_FUNDED_BALANCE = 100;
const RESTORE_STAKE = money('0.01');

export async function certifyCasino(config: CertifyConfig, options: { onCheck?: (check: CheckReport) => void } = {}): Promise<Report> {
  const started = Date.now();
  const wallet = new WalletLine(config);
  const kit = new Kit(config, wallet);
  try {
    const found = await startingBalances(kit);
    const checks: CheckReport[] = [];
    for (const check of CHECKS) {
      const report = await runCheck(kit, check, checks);
      checks.push(report);
      options.onCheck?.(report);
    }
    const balances = await restoreBalances(kit, found);
    const exitCode = checks.some((c) => c.required && c.status === 'fail') ? 1 : 0;
    return { runId: kit.runId, providerId: config.providerId, startedAt: new Date(started).toISOString(), durationMs: Date.now() - started, checks, balances, exitCode };
  } finally {
    await wallet.close();
  }
}

async function runCheck(kit: Kit, check: Check, done: readonly CheckReport[]): Promise<CheckReport> {
  const base = { id: check.id, required: check.required, sent: check.sends, why: check.why, received: '' };
  const unmet = (check.needs ?? []).filter((id) => done.find((c) => c.id === id)?.status !== 'pass');
  if (unmet.length > 0) return { ...base, status: 'skipped', detail: `not run: needs ${unmet.join(', ')} to pass first` };
  if (check.player && !kit.has(check.player)) return { ...base, status: 'skipped', detail: `not run: the config has no ${check.player} player` };
  try {
    const verdict = await check.run(kit);
    return { ...base, status: verdict.status, detail: verdict.detail, received: verdict.received ?? '', sent: verdict.sent ?? check.sends };
  } catch (err) {
    if (err instanceof CheckFailed) return { ...base, status: 'fail', detail: err.message, received: err.received ?? '' };
    return { ...base, status: 'fail', detail: `the kit could not complete this check: ${kit.redact((err as Error).message)}` };
  }
}

/** The balance of each test player the kit moves money for; a wallet that cannot be reached is exit status 2. */
async function startingBalances(kit: Kit): Promise<Map<PlayerRole, MoneyValue>> {
  const found = new Map<PlayerRole, MoneyValue>();
  const reply = await kit.send('balance', kit.balanceBody('funded'));
  if (reply.status === undefined) throw new SetupError(`cannot reach the wallet at ${shownUrl(kit.config.walletUrl)}: ${reply.transportError}`);
  const funded = kit.accountIn(reply);
  if (funded) {
    if (funded.cents.lt(MIN_FUNDED_BALANCE)) {
      throw new SetupError(`the funded player holds ${kit.amount(funded.cents)}; the kit needs at least ${kit.amount(String(MIN_FUNDED_BALANCE))}`);
    }
    found.set('funded', funded.exact);
  }
  if (kit.has('poor')) {
    const poor = kit.accountIn(await kit.send('balance', kit.balanceBody('poor')));
    if (poor) found.set('poor', poor.exact);
  }
  return found;
}

/**
 * Gives back what the run took (or takes back what a broken wallet gave) with fresh
 * transactionIds, so the kit can run against a staging wallet every night.
 */
async function restoreBalances(kit: Kit, found: Map<PlayerRole, MoneyValue>): Promise<BalanceNote[]> {
  const notes: BalanceNote[] = [];
  for (const [player, before] of found) {
    let now = await kit.balanceOf(player).catch(() => undefined);
    const gap = now && before.minus(now).toDecimalPlaces(2);
    if (gap && !gap.isZero()) {
      await putBack(kit, player, gap);
      now = await kit.balanceOf(player).catch(() => undefined);
    }
    const restored = now !== undefined && now.toDecimalPlaces(2).eq(before.toDecimalPlaces(2));
    notes.push({ player, before: before.toString(), after: now?.toString() ?? 'unreadable', restored });
  }
  return notes;
}

/** The correction as ordinary game traffic: a bet of 0.01 that wins the gap back, or a bet of the excess that is lost. */
async function putBack(kit: Kit, player: PlayerRole, gap: MoneyValue): Promise<void> {
  const owed = gap.isPos();
  const bet = kit.debitBody(player, owed ? RESTORE_STAKE : gap.negated());
  if (!is2xx(await kit.send('debit', bet))) return;
  await kit.send('credit', owed ? kit.creditBody(bet, gap.plus(RESTORE_STAKE)) : kit.creditBody(bet, '0', 'BET_LOST'));
}

/** Without user info or query string: either may hold a credential. */
function shownUrl(walletUrl: string): string {
  const url = new URL(walletUrl);
  return `${url.origin}${url.pathname}`;
}
