import { CHANCES, isChance, multiplierFor, playDice } from './dice';

describe('dice', () => {
  it('When a chance is picked, then the multiplier pays 99 % of a fair bet, truncated to cents', () => {
    expect(CHANCES.map(multiplierFor)).toEqual([3.96, 1.98, 1.32]);
  });

  it('When the outcome is forced, then a win pays stake times multiplier rounded down to cents and a loss pays 0', () => {
    expect(playDice(0.33, 75, 1000, 'WIN')).toEqual({ roll: 1, won: true, multiplier: 1.32, payout: 0.43, capped: false }); // 0.4356
    expect(playDice(10, 50, 1000, 'LOSS')).toEqual({ roll: 100, won: false, multiplier: 1.98, payout: 0, capped: false });
    expect(playDice(0.1, 50, 1000, 'WIN').payout).toBe(0.19); // 0.198, never rounded up
  });

  it('When a win is above maxWin, then it is capped', () => {
    expect(playDice(100, 25, 250, 'WIN')).toMatchObject({ payout: 250, capped: true });
  });

  it('When rolled for real, then every roll is 1..100 and wins exactly at or under the chance', () => {
    for (let i = 0; i < 2000; i++) {
      const r = playDice(1, 25, 1000);
      expect(r.roll).toBeGreaterThanOrEqual(1);
      expect(r.roll).toBeLessThanOrEqual(100);
      expect(r.won).toBe(r.roll <= 25);
    }
  });

  it('When a chance is not offered, then it is not a chance', () => {
    expect([25, 50, 75, 99, '50', 0].map(isChance)).toEqual([true, true, true, false, false, false]);
  });
});
