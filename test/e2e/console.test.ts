import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import Decimal from 'decimal.js';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { http, replicated } from '../platform';
import { bo, createOperator, type NewOperator } from '../backoffice';
import { ROOT } from '../processes';
import { currentCode } from '../../services/backoffice/src/domain/totp';
import { betBody, winBody } from '../../services/wallet/test/money-support';
import { playRound, startMoneyWorld, type MoneyWorld } from '../../services/backoffice/test/money-support';
import type { Player } from '../game';

/**
 * The web console at /console/ on the gateway, in Debian's chromium: people created through the
 * API sign in with their password and a TOTP code (enrolling from the QR code's key), and work
 * the screens on money played through the sandbox casino. One browser, one page, reused across
 * the steps; every screen is checked with axe-core and photographed into test-output/console/.
 */
const SHOTS = path.join(ROOT, 'test-output', 'console');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

let w: MoneyWorld;
let pa: Player;
let pb: Player;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const problems: string[] = [];

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  w = await startMoneyWorld({ RECONCILIATION_OPEN_ROUND_SECONDS: '1' });
  [pa, pb] = await Promise.all([w.a.launchPlayer({ balance: 1000 }), w.b.launchPlayer({ balance: 1000 })]);
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
}, 90000);

afterAll(async () => {
  await browser?.close();
  await w?.stop();
});

const url = (p: string) => `${w.p.baseUrl}/console${p}`;

/** axe-core, evaluated in the page (the console's CSP allows no injected script tag), then run on the whole document. */
async function accessibility(name: string): Promise<void> {
  await page.evaluate(AXE);
  const violations: { id: string; impact: string; nodes: number }[] = await page.evaluate(`axe.run(document, { resultTypes: ['violations'] })
    .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length })))`);
  expect({ screen: name, serious: violations.filter((v) => v.impact === 'serious' || v.impact === 'critical') }).toEqual({ screen: name, serious: [] });
}

async function screen(name: string): Promise<void> {
  await accessibility(name);
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/** Password, the enrolment (the secret printed under the QR code), the first code, the recovery codes; returns the secret. */
async function signInFirstTime(op: NewOperator): Promise<string> {
  // Whoever used the page before (a step that failed half way) is forgotten.
  await context.clearCookies();
  await page.goto(url('/'));
  await page.getByLabel('Email').waitFor();
  await screen('00-sign-in');
  await page.getByLabel('Email').fill(op.email);
  await page.getByLabel('Password').fill(op.password);
  // The keyboard alone: Enter submits each step.
  await page.getByLabel('Password').press('Enter');
  const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
  expect(await page.getByRole('img', { name: /QR code/ }).getAttribute('src')).toMatch(/^data:image\/png;base64,/);
  await screen('01-enrolment');
  await page.getByLabel('First code from the app').fill(currentCode(secret));
  await page.getByLabel('First code from the app').press('Enter');
  await page.getByRole('heading', { name: 'Keep your recovery codes' }).waitFor();
  await page.getByRole('button', { name: /continue/ }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  return secret;
}

/** Ends the page's session from outside (as an idle time-out or a sign-out in another tab would). */
async function endSessionBehindThePage(): Promise<void> {
  const cookies = Object.fromEntries((await context.cookies()).map((c) => [c.name, c.value]));
  const res = await http('DELETE', bo(w.p, 'session'), { headers: { cookie: `relay_bo_session=${cookies.relay_bo_session}`, 'x-csrf-token': decodeURIComponent(cookies.relay_bo_csrf) } });
  expect(res.status).toBe(200);
}

async function signOut(): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: /Sign in to the Game Relay console/ }).waitFor();
}

describe('the web console', () => {
  it('When the console is asked for a screen by its address, then index.html answers without a credential, under a strict CSP', async () => {
    const res = await http('GET', url('/search?providerId=x'));
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/<div id="root">/);
    expect(res.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    const asset = /src="(\/console\/assets\/[^"]+\.js)"/.exec(res.text)![1];
    expect((await http('GET', `${w.p.baseUrl}${asset}`)).status).toBe(200);
    expect((await http('GET', url('/assets/missing.js'))).status).toBe(404);
    // The API behind it still wants a credential.
    const refused = await http('GET', bo(w.p, 'money/rounds'));
    expect([refused.status, refused.body.error]).toEqual([403, 'AUTHENTICATION_FAILED']);
  });

  it('When a platform admin signs in with TOTP, then the overview, search, round story, reports and flagged wins show the rounds played', async () => {
    const played = await playRound(w.a, pa, 10, 25);
    expect((await w.a.call('POST', '/api/round-ended', { roundId: played.roundId, providerIds: [w.a.providerId] })).status).toBe(200);
    await playRound(w.a, pa, 4, 0);
    const admin = await createOperator(w.p, 'admin', { type: 'platform' });
    const secret = await signInFirstTime(admin);
    await page.getByText(/Last 30 days in EUR/).waitFor();
    // Casino wallet health: casino A's debits of the last hour, from the relay's records.
    const health = page.getByRole('region', { name: 'Casino wallet health' });
    await health.getByRole('row', { name: new RegExp(`${w.a.providerId} debit last hour`) }).waitFor();
    await screen('02-overview');
    // Keyboard: the first Tab reaches "Skip to content", whose Enter moves focus past the navigation.
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.closest("main") !== null')).toBe(true);

    await page.goto(url(`/search?providerId=${w.a.providerId}`));
    await page.getByRole('link', { name: played.roundId }).waitFor();
    expect(await page.locator('.totals').innerText()).toMatch(/2 rounds match[\s\S]*EUR: 2 · bets EUR\s14\.00 · payouts EUR\s25\.00/);
    await screen('03-search');
    // The export link carries the same filters and the order on screen, and works with the page's own session cookie.
    const csvHref = await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href');
    expect(csvHref).toBe(`/backoffice/v1/money/rounds.csv?providerId=${w.a.providerId}&sortOrder=desc`);
    const csv = await page.request.get(`${w.p.baseUrl}${csvHref}`);
    expect(csv.status()).toBe(200);
    expect((await csv.text()).split('\n').filter((l) => l.includes(played.roundId))).toHaveLength(1);

    // The session ends while a filter is half typed: sign in again over the screen, nothing typed is lost.
    await page.getByLabel('Player').fill('typed-before-expiry');
    await endSessionBehindThePage();
    await page.getByRole('tab', { name: 'Transactions' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: /Your session ended/ }).waitFor();
    await screen('03b-session-ended');
    await dialog.getByLabel('Email').fill(admin.email);
    await dialog.getByLabel('Password').fill(admin.password);
    await dialog.getByRole('button', { name: 'Continue' }).click();
    // A code is accepted once per 30 s step: the next step's code (within the allowed drift).
    await dialog.getByLabel(/Authenticator code/).fill(currentCode(secret, Date.now() + 30_000));
    await dialog.getByRole('button', { name: 'Sign in' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await page.getByLabel('Player').inputValue()).toBe('typed-before-expiry');
    await page.getByLabel('Player').fill('');
    await page.getByRole('tab', { name: 'Rounds' }).click();
    await page.getByRole('link', { name: played.roundId }).waitFor();
    await page.getByRole('button', { name: /Time/ }).click();
    await page.waitForURL(/sortOrder=asc/);
    await page.getByRole('link', { name: played.roundId }).click();

    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    const story = await page.locator('main').innerText();
    expect(story).toMatch(/Bet \(cash-out\)\s+EUR\s10\.00/);
    expect(story).toMatch(/Settlement \(cash-in\)\s+EUR\s25\.00/);
    expect(story).toContain(played.betId);
    expect(story).toMatch(/Round ended, casino notified · casino accepted/);
    expect(story).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);
    expect(await page.locator('time').first().getAttribute('title')).toMatch(/^Local: /);
    await screen('04-round-story');

    await page.goto(url('/reports'));
    await page.getByText(/Bets, payouts and GGR per day in EUR/).waitFor();
    await screen('05-reports');
    // A payout over EUR 20 is flagged (thresholds apply when read): the 25.00 win is to review.
    const thresholds = await http('PUT', bo(w.p, `money/flag-thresholds/${w.a.providerId}`), { token: w.p.adminToken, body: { multiplierOver: 1000, payoutOver: { EUR: 20 } } });
    expect(thresholds.status).toBe(200);
    await page.goto(url('/flagged-wins?state=FLAGGED'));
    const flagged = page.locator('table.results tbody tr').filter({ hasText: played.roundId });
    await flagged.waitFor();
    expect(await flagged.innerText()).toMatch(/EUR\s25\.00/);
    await screen('06-flagged-wins');
    await flagged.getByLabel('Note').fill('Player known, win checked against the game log');
    await flagged.getByRole('button', { name: 'Mark reviewed' }).click();
    await page.goto(url('/flagged-wins?state=REVIEWED'));
    await page.locator('table.results tbody tr').filter({ hasText: played.roundId }).getByText(/win checked against the game log/).waitFor();

    // The review is in the audit trail, found by its target; the chain checks out.
    await page.getByRole('link', { name: 'Audit trail' }).click();
    await page.getByLabel('Target').fill(`flagged-win/${w.a.providerId}/${played.winId}`);
    await page.getByLabel('Target').press('Enter');
    const entry = page.locator('table.results tbody tr');
    await page.getByText(/^1 entries\.$/).waitFor();
    await entry.getByText('before / after').click();
    expect(await entry.locator('pre').innerText()).toContain('Player known, win checked against the game log');
    await page.getByRole('button', { name: 'Verify the chain' }).click();
    await page.getByRole('status').filter({ hasText: 'The audit chain is intact' }).waitFor();
    await screen('06b-audit-trail');

    await page.getByRole('button', { name: /Dark theme/ }).click();
    expect(await page.evaluate('document.documentElement.dataset.theme')).toBe('dark');
    await screen('07-flagged-wins-dark');
    await page.getByRole('button', { name: /Light theme/ }).click();
    await signOut();
  }, 90000);

  it('When a credit fails at the casino, then casino support sees only its own casino, acknowledges the item with a note, the ledger closes it when the game repeats the credit, and support gets "not found" for another casino\'s round', async () => {
    const bet = betBody(w.a, pa, { amount: 7 });
    expect((await w.a.call('POST', '/api/balance/cash-out', bet)).status).toBe(200);
    const win = winBody(w.a, pa, bet, { amount: 14, appliedMultiplier: 2 });
    w.sandbox.setFault({ providerId: w.a.providerId, operation: 'credit' }, { kind: 'error', status: 500, applyFirst: true }, 1);
    expect((await w.a.call('POST', '/api/balance/cash-in', win)).status).toBe(502);
    const other = await playRound(w.b, pb, 3, 0);

    const support = await createOperator(w.p, 'support', { type: 'casino', providerId: w.a.providerId });
    await signInFirstTime(support);
    await page.goto(url('/reconciliation?state=OPEN&kind=CREDIT_OWED'));
    const row = page.getByTestId('queue-item').filter({ hasText: bet.roundId });
    await row.waitFor();
    expect(await row.innerText()).toMatch(/EUR\s14\.00/);
    await screen('08-reconciliation');
    await row.getByLabel('Note').fill('Studio asked to repeat the credit');
    // The decision is written on the money database and the lists read the reporting database: the
    // next page waits for the decision's answer and the replication barrier (docs/reporting-database.md).
    const decided = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().includes('/reconciliation/'));
    await row.getByRole('button', { name: 'Acknowledge' }).click();
    expect((await decided).status()).toBe(200);
    await replicated();
    await page.goto(url('/reconciliation?state=ACKNOWLEDGED'));
    await page.getByTestId('queue-item').filter({ hasText: bet.roundId }).getByText('Studio asked to repeat the credit').waitFor();
    const saved = await http('GET', bo(w.p, `money/reconciliation/items/CREDIT_OWED/${w.a.providerId}/${win.transactionId}`), { token: w.p.adminToken });
    expect(saved.body.data).toMatchObject({ state: 'ACKNOWLEDGED', note: 'Studio asked to repeat the credit' });
    await screen('09-reconciliation-acknowledged');

    // The game repeats the credit; the casino takes it now. The ledger closes the item by itself:
    // it leaves the queue, and the round's story shows the round settled by the repeated credit.
    expect((await w.a.call('POST', '/api/balance/cash-in', win)).status).toBe(200);
    const closed = await http('GET', bo(w.p, `money/reconciliation/items/CREDIT_OWED/${w.a.providerId}/${win.transactionId}`), { token: w.p.adminToken });
    expect(closed.body.data).toMatchObject({ state: 'CLOSED_BY_LEDGER', note: 'Studio asked to repeat the credit' });
    await page.goto(url('/reconciliation?state=ACKNOWLEDGED'));
    // The answer is on screen ("N items."), not still loading, before the item's absence is read.
    await page.getByText(/^\d+ items\./).waitFor();
    expect(await page.getByTestId('queue-item').filter({ hasText: bet.roundId }).count()).toBe(0);
    await page.goto(url(`/rounds/${w.a.providerId}/${bet.roundId}`));
    await page.getByText(/SETTLED/).first().waitFor();
    await screen('09b-reconciliation-closed-by-ledger-story');

    await page.goto(url('/search'));
    await page.getByRole('link', { name: bet.roundId }).waitFor();
    const casinos = await page.locator('table.results tbody tr td:nth-child(2)').allInnerTexts();
    expect(new Set(casinos)).toEqual(new Set([w.a.providerId]));
    await page.goto(url(`/rounds/${w.b.providerId}/${other.roundId}`));
    await page.getByRole('alert').filter({ hasText: /Not found/ }).waitFor();
    await screen('10-other-casino-not-found');
    await signOut();
  }, 90000);

  it('When a finance account exports a report from the Reports screen, then the CSV sums equal the API totals to the cent', async () => {
    // More rounds in casino A, whose finance account this is (a casino's own people see only it; the
    // platform's would also see the other test files' casinos, whose money moves meanwhile).
    await playRound(w.a, pa, 7.25, 3.1);
    await playRound(w.a, pa, 12.4, 30.05);
    const finance = await createOperator(w.p, 'finance', { type: 'casino', providerId: w.a.providerId });
    await signInFirstTime(finance);
    // Finance does not provision: no such entry for this role.
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Provisioning' }).count()).toBe(0);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Reports' }).click();
    // Grouped by casino and day (any combination; currency always): the address carries it.
    await page.getByRole('checkbox', { name: 'Casino' }).check();
    await page.waitForURL(/groupBy=day%2Ccasino|groupBy=day,casino/);
    await page.getByRole('columnheader', { name: 'Casino' }).waitFor();
    await page.locator('table tbody tr').filter({ hasText: w.a.providerId }).first().waitFor();
    await screen('05b-reports-by-casino-finance');
    const href = (await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href'))!;
    expect(href).toMatch(/^\/backoffice\/v1\/money\/reports\.csv\?.*groupBy=day%2Ccasino/);
    // The browser's own session (cookie) fetches both: the file the link gives, and the API's answer for the same query.
    const csv = await page.request.get(`${w.p.baseUrl}${href}`);
    expect(csv.status()).toBe(200);
    const api = await page.request.get(`${w.p.baseUrl}${href.replace('/reports.csv?', '/reports?')}&limit=500`);
    expect(api.status()).toBe(200);
    const totals: Record<string, unknown>[] = (await api.json()).meta.totals;

    const rows: Record<string, string>[] = parseCsv(await csv.text(), { columns: true, comment: '#', skip_empty_lines: true });
    expect(new Set(rows.map((r) => r.providerId))).toEqual(new Set([w.a.providerId]));
    expect(rows.reduce((n, r) => n + Number(r.bets), 0)).toBeGreaterThanOrEqual(4);
    const sums = new Map<string, Record<string, Decimal>>();
    const METRICS = ['bets', 'betSum', 'payoutSum', 'ggr', 'roundsSettled', 'roundsOpen'];
    for (const r of rows) {
      const acc = sums.get(r.currency) ?? Object.fromEntries(METRICS.map((m) => [m, new Decimal(0)]));
      for (const m of METRICS) acc[m] = acc[m].plus(r[m]);
      sums.set(r.currency, acc);
    }
    const fromCsv = [...sums].map(([currency, acc]) => ({ currency, ...Object.fromEntries(METRICS.map((m) => [m, acc[m].toNumber()])) }));
    const fromApi = totals.map((t) => ({ currency: t.currency as string, ...Object.fromEntries(METRICS.map((m) => [m, t[m]])) }));
    expect(fromCsv.sort((x, y) => x.currency.localeCompare(y.currency))).toEqual(fromApi);
    // And the totals are the money played: GGR is bets minus payouts, to the cent.
    for (const t of totals) expect(new Decimal(t.betSum as number).minus(t.payoutSum as number).toNumber()).toBe(t.ggr);
    await signOut();
  }, 90000);

  it('When the console has been used, then no screen logged an error in the browser', () => {
    // Chromium logs every 4xx answer to fetch as "Failed to load resource": the session probe before
    // sign-in (403) and another casino's round (404) are answers the screens show, asserted above.
    expect(problems.filter((p) => !/Failed to load resource: the server responded with a status of 40[34]/.test(p))).toEqual([]);
  });
});
