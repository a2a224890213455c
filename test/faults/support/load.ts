import type { GameWorld, Player } from '../../game';
import { betBody, winBody } from '../../../services/wallet/test/money-support';
import { replayUntilOk, sleep, type MoneyRoute } from './money';
import type { Tally } from './reliability';

/**
 * Steady game traffic for outage tests: each player plays bet after bet (a cash-out, then a win or
 * a loss through cash-in, then round-ended), as fast as the platform answers. Whatever does not get
 * a 200 is what a game would keep in its retry queue; `settle` repeats it with the same
 * transactionIds once the platform is back, and the expected casino balance of every player is known.
 */
interface Owed {
  bet?: ReturnType<typeof betBody>;
  win: ReturnType<typeof winBody>;
}

export class MoneyLoad {
  private running = false;
  private loops: Promise<void>[] = [];
  private readonly owed: Owed[] = [];
  /** transactionIds the platform answered 200: each must be SUCCESS in the end. */
  readonly confirmed: string[] = [];
  /** Rounds whose round-ended answered ok: the casino must have the notice. */
  readonly notified: string[] = [];
  /** Answers by route and status, e.g. {"cash-out 200": 412, "cash-out 500": 3}. */
  readonly statuses: Record<string, number> = {};
  private readonly expectedCents = new Map<string, number>();

  constructor(
    private readonly g: GameWorld,
    private readonly players: Player[],
    private readonly tally: Tally,
    private readonly startBalance: number,
  ) {
    for (const pl of players) this.expectedCents.set(pl.playerId, startBalance * 100);
  }

  start(): void {
    this.running = true;
    this.loops = this.players.map((pl) => this.play(pl));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** Repeats every unanswered movement with the same ids, in order (a bet before its win). */
  async settle(): Promise<{ repeated: number; failures: string[] }> {
    const failures: string[] = [];
    for (const item of this.owed.splice(0)) {
      const steps: [MoneyRoute, { transactionId: string }][] = item.bet ? [['/api/balance/cash-out', item.bet], ['/api/balance/cash-in/retry', item.win]] : [['/api/balance/cash-in/retry', item.win]];
      for (const [route, body] of steps) {
        const res = await replayUntilOk(this.g, route, body, this.tally, 80);
        if (res.status !== 200) failures.push(`${route} ${body.transactionId}: ${res.status} ${JSON.stringify(res.body)}`);
        else this.confirmed.push(body.transactionId);
      }
    }
    return { repeated: this.confirmed.length, failures };
  }

  expectedBalance(playerId: string): number {
    return (this.expectedCents.get(playerId) ?? 0) / 100;
  }

  private count(route: string, status: number): void {
    const key = `${route.replace('/api/balance/', '').replace('/api/', '')} ${status}`;
    this.statuses[key] = (this.statuses[key] ?? 0) + 1;
    this.tally.request();
  }

  private async play(pl: Player): Promise<void> {
    let n = 0;
    while (this.running) {
      n += 1;
      const stakeCents = 100 + (n % 7) * 25;
      const payoutCents = n % 3 === 0 ? 0 : stakeCents * 2;
      const bet = betBody(this.g, pl, { amount: stakeCents / 100 });
      const win = winBody(this.g, pl, bet, { amount: payoutCents / 100, ...(payoutCents === 0 ? { reason: 'BET_LOST', appliedMultiplier: 0 } : {}) });
      this.expectedCents.set(pl.playerId, this.expectedCents.get(pl.playerId)! - stakeCents + payoutCents);
      const debit = await this.send('/api/balance/cash-out', bet);
      if (debit !== 200) {
        this.owed.push({ bet, win });
        await sleep(50);
        continue;
      }
      this.confirmed.push(bet.transactionId);
      if ((await this.send('/api/balance/cash-in', win)) !== 200) {
        this.owed.push({ win });
        await sleep(50);
        continue;
      }
      this.confirmed.push(win.transactionId);
      const ended = await this.g.call('POST', '/api/round-ended', { roundId: bet.roundId, providerIds: [this.g.providerId] }).catch(() => ({ status: 0 }));
      this.count('/api/round-ended', ended.status);
      if (ended.status === 200) this.notified.push(bet.roundId);
    }
  }

  private async send(route: MoneyRoute, body: object): Promise<number> {
    const res = await this.g.call('POST', route, body).catch(() => ({ status: 0 }));
    this.count(route, res.status);
    return res.status;
  }
}
