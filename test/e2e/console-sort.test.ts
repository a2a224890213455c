import { randomUUID } from 'node:crypto';
import { http } from '../platform';
import { bo, createOperator } from '../backoffice';
import { playRound, startMoneyWorld, type MoneyWorld } from '../../services/backoffice/test/money-support';
import type { Player } from '../game';
import { openConsole, type ConsolePage } from './console-support';

/**
 * The console's sortable search columns and the flag thresholds screen, in Chromium: a platform
 * admin sorts the rounds of a casino by a column header (mouse and keyboard), the address carries
 * the sort (a reload shows the same order), the next page and the CSV export keep it; then the
 * admin changes the casino's thresholds on the thresholds screen (a bad value is refused with the
 * API's reason next to the field) and a win above the new threshold is flagged.
 */
let w: MoneyWorld;
let pa: Player;
let c: ConsolePage;
const played: { roundId: string; winId: string }[] = [];

beforeAll(async () => {
  w = await startMoneyWorld();
  pa = await w.a.launchPlayer({ balance: 1000 });
  played.push(await playRound(w.a, pa, 12, 30));
  played.push(await playRound(w.a, pa, 3, 0));
  played.push(await playRound(w.a, pa, 7, 7.5));
  // Enough further rounds of the same casino for a second page (the console shows 50 a page),
  // written straight into the ledger, a day earlier, with bets between 0.01 and 0.60.
  const at = new Date(Date.now() - 86400_000).toISOString();
  const base = { provider_id: w.a.providerId, group_id: w.a.groupId, game_id: w.a.gameId, player_id: pa.playerId, session_id: pa.sessionId, currency: 'EUR', language: 'en' };
  await w.p.db.primary('rounds').insert(Array.from({ length: 60 }, (_x, i) => ({
    ...base, id: randomUUID(), round_id: `seeded-${i}`, status: 'OPEN', bet_amount: ((i + 1) / 100).toFixed(2), bet_transaction_id: `seeded-bet-${i}`, opened_at: at, created_at: at,
  })));
  c = await openConsole(w.p.baseUrl);
}, 90000);

afterAll(async () => {
  await c?.close();
  await w?.stop();
});

/** The Bet column of the rounds table as numbers, in the order shown. */
async function bets(): Promise<number[]> {
  const cells = await c.page.locator('table.results tbody tr td:nth-child(8)').allInnerTexts();
  return cells.map((t) => Number(t.replace(/[^\d.]/g, '')));
}

const sortOf = (name: string) => c.page.getByRole('columnheader', { name }).getAttribute('aria-sort');

describe('the console search, sorted by its column headers', () => {
  it('When a platform admin sorts the rounds by bet, then the order, the address, the next page and the CSV export all follow the sort', async () => {
    const { page } = c;
    const admin = await createOperator(w.p, 'admin', { type: 'platform' });
    await c.signInFirstTime(admin);
    await page.goto(c.url(`/search?providerId=${w.a.providerId}`));
    await page.getByRole('link', { name: played[0].roundId }).waitFor();
    expect(await sortOf('Time')).toBe('descending');
    expect(await sortOf('Bet')).toBe('none');

    // Largest bet first, by mouse.
    await page.getByRole('button', { name: 'Bet', exact: true }).click();
    await page.waitForURL(/sortBy=betAmount/);
    expect(new URL(page.url()).searchParams.get('sortOrder')).toBe('desc');
    await page.getByRole('link', { name: played[1].roundId }).waitFor();
    expect((await bets()).slice(0, 3)).toEqual([12, 7, 3]);
    expect([await sortOf('Bet'), await sortOf('Time')]).toEqual(['descending', 'none']);

    // The same header again, by keyboard: smallest first.
    await page.getByRole('button', { name: 'Bet', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/sortOrder=asc/);
    await page.getByRole('link', { name: 'seeded-0', exact: true }).waitFor();
    const first = await bets();
    expect(first).toHaveLength(50);
    expect(first).toEqual([...first].sort((a, b) => a - b));
    expect(first[0]).toBe(0.01);
    expect(await sortOf('Bet')).toBe('ascending');
    await c.screen('11-search-sorted-by-bet');

    // A shared link (a reload) shows the same order.
    const shared = page.url();
    await page.goto(shared);
    await page.getByRole('link', { name: 'seeded-0', exact: true }).waitFor();
    expect(await bets()).toEqual(first);

    // The export link carries the sort, and the file is in that order.
    const href = await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href');
    expect(href).toBe(`/backoffice/v1/money/rounds.csv?providerId=${w.a.providerId}&sortBy=betAmount&sortOrder=asc`);
    const csv = await page.request.get(`${w.p.baseUrl}${href}`);
    const lines = (await csv.text()).trim().split('\n');
    expect(lines[0]).toBe(`# scope: platform; filters: providerId=${w.a.providerId}, sortBy=betAmount, sortOrder=asc`);
    const column = lines[1].split(',').indexOf('betAmount');
    const exported = lines.slice(2).map((l) => Number(l.split(',')[column]));
    expect(exported.slice(0, 50)).toEqual(first);
    expect(exported).toHaveLength(63);

    // The next page continues the same order where the first ended.
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.waitForURL(/cursor=/);
    expect(new URL(page.url()).searchParams.get('sortBy')).toBe('betAmount');
    await page.getByRole('link', { name: played[0].roundId }).waitFor();
    expect(await bets()).toEqual(exported.slice(50));
    expect(await bets()).toEqual([0.51, 0.52, 0.53, 0.54, 0.55, 0.56, 0.57, 0.58, 0.59, 0.6, 3, 7, 12]);

    // The payout header, by keyboard from the bet header: open rounds (no payout) come last.
    await page.getByRole('button', { name: 'Bet', exact: true }).focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForURL(/sortBy=payoutAmount/);
    expect(new URL(page.url()).searchParams.get('cursor')).toBeNull();
    await page.getByRole('link', { name: played[0].roundId }).waitFor();
    const payouts = await page.locator('table.results tbody tr td:nth-child(9)').allInnerTexts();
    expect(payouts.slice(0, 4).map((t) => t.replace(/\s+/g, ' '))).toEqual(['EUR 30.00', 'EUR 7.50', 'EUR 0.00', '—']);

    // Transactions have their own sorts: the rounds' sort does not follow to the other tab.
    await page.getByRole('tab', { name: 'Transactions' }).click();
    await page.getByRole('button', { name: 'Amount', exact: true }).click();
    await page.waitForURL(/table=transactions.*sortBy=amount|sortBy=amount.*table=transactions/);
    await page.getByText(played[0].winId).waitFor();
    const amounts = await page.locator('table.results tbody tr td:nth-child(9)').allInnerTexts();
    expect(amounts.map((t) => Number(t.replace(/[^\d.]/g, '')))).toEqual([30, 12, 7.5, 7, 3, 0]);
    await c.screen('12-search-transactions-by-amount');
  }, 90000);
});

describe('the flag thresholds screen', () => {
  it('When a platform admin lowers a casino threshold, then a bad value is refused by the field, and a win above the new threshold is flagged', async () => {
    const { page } = c;
    // Under the defaults (10000 in any currency, 500x) none of these wins is flagged.
    const before = await http('GET', bo(w.p, `money/flagged-wins?providerId=${w.a.providerId}`), { token: w.p.adminToken });
    expect(before.body.data).toEqual([]);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Flagged wins' }).click();
    await page.getByRole('main').getByRole('link', { name: 'Flag thresholds' }).click();
    await page.getByRole('heading', { name: 'Flag thresholds' }).waitFor();
    const rows = page.locator(`[data-testid="threshold-row"][data-casino="${w.a.providerId}"]`);
    expect((await rows.first().innerText()).replace(/\s+/g, ' ')).toMatch(/any other currency 10,000\.00 ×500 platform defaults/);
    await c.screen('13-flag-thresholds');

    await page.getByRole('button', { name: `Change the thresholds of ${w.a.providerId}` }).click();
    const form = page.getByRole('form', { name: new RegExp(`Thresholds of .*${w.a.providerId}`) });
    await form.getByRole('button', { name: 'Add a currency' }).click();
    await form.getByRole('textbox', { name: 'Currency 2' }).fill('EUR');
    // Three decimals: the API refuses it, and the reason is shown by the field.
    await form.getByRole('textbox', { name: 'Payout over 2' }).fill('20.005');
    await form.getByRole('button', { name: 'Save thresholds' }).click();
    await form.getByRole('alert').filter({ hasText: /Validation failed/ }).waitFor();
    expect(await form.getByRole('textbox', { name: 'Payout over 2' }).getAttribute('aria-invalid')).toBe('true');
    expect(await form.locator('#t-amount-1-error').innerText()).toMatch(/at most 2 decimals/);
    await c.screen('14-flag-thresholds-invalid');
    // Nothing was saved.
    const unchanged = await http('GET', bo(w.p, `money/flag-thresholds/${w.a.providerId}`), { token: w.p.adminToken });
    expect(unchanged.body.data.isDefault).toBe(true);

    await form.getByRole('textbox', { name: 'Payout over 2' }).fill('20');
    await form.getByRole('button', { name: 'Save thresholds' }).click();
    await page.getByRole('status').filter({ hasText: `Saved the thresholds of ${w.a.providerId}` }).waitFor();
    await rows.filter({ hasText: 'EUR' }).waitFor();
    expect((await rows.filter({ hasText: 'EUR' }).innerText()).replace(/\s+/g, ' ')).toMatch(/EUR EUR 20\.00/);
    const saved = await http('GET', bo(w.p, `money/flag-thresholds/${w.a.providerId}`), { token: w.p.adminToken });
    expect(saved.body.data).toEqual({ providerId: w.a.providerId, isDefault: false, multiplierOver: 500, payoutOver: { '*': 10000, EUR: 20 } });
    const audit = await http('GET', bo(w.p, `audit?action=flag-thresholds.set&target=flag-thresholds/${w.a.providerId}`), { token: w.p.adminToken });
    expect(audit.body.data).toHaveLength(1);
    await c.screen('15-flag-thresholds-saved');
    await page.getByRole('button', { name: /Dark theme/ }).click();
    expect(await page.evaluate('document.documentElement.dataset.theme')).toBe('dark');
    await c.screen('15b-flag-thresholds-dark');
    await page.getByRole('button', { name: /Light theme/ }).click();

    // The 30.00 win played before is now above the threshold, and so is a new 25.00 win; 7.50 is not.
    const later = await playRound(w.a, pa, 5, 25);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Flagged wins' }).click();
    await page.getByRole('heading', { name: 'Flagged wins' }).waitFor();
    for (const win of [played[0], later]) await page.locator('table.results tbody tr').filter({ hasText: win.roundId }).waitFor();
    expect(await page.locator('table.results tbody tr').filter({ hasText: played[2].roundId }).count()).toBe(0);
    await c.screen('16-flagged-after-threshold');
  }, 90000);

  it('When the screens have been used, then no browser error was logged', () => {
    // The only refusals: the session probe before sign-in and the threshold the API refused (and
    // Chromium's console line for each).
    expect(c.problems.filter((p) => !/^console: Failed to load resource: the server responded with a status of 40[03]/.test(p))).toEqual([
      'response: 403 GET /backoffice/v1/session',
      `response: 400 PUT /backoffice/v1/money/flag-thresholds/${w.a.providerId}`,
    ]);
    expect(c.problems.filter((p) => p.startsWith('console:'))).toHaveLength(2);
  });
});
