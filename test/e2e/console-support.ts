import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { NewOperator } from '../backoffice';
import { ROOT } from '../processes';
import { currentCode } from '../../services/backoffice/src/domain/totp';

/**
 * One Chromium page on the console for an e2e file: sign-in with enrolment, axe-core on the whole
 * document (no serious or critical violation), screenshots into test-output/console/, and every
 * browser error collected. The same steps as test/e2e/console.test.ts, for the files that follow it.
 */
export const SHOTS = path.join(ROOT, 'test-output', 'console');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface ConsolePage {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Browser console errors, page errors and answers of 400 or more (`response: 404 GET /path`), in order. */
  problems: string[];
  url(p: string): string;
  /** axe-core on the page, then a full-page screenshot named `name`. */
  screen(name: string): Promise<void>;
  /** Password, enrolment from the secret under the QR code, recovery codes; returns the TOTP secret. */
  signInFirstTime(op: NewOperator): Promise<string>;
  close(): Promise<void>;
}

export async function openConsole(baseUrl: string): Promise<ConsolePage> {
  mkdirSync(SHOTS, { recursive: true });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  // Which address a "Failed to load resource" was: Chromium's console line does not say.
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`response: ${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`);
  });
  const url = (p: string) => `${baseUrl}/console${p}`;

  const screen = async (name: string) => {
    // Evaluated in the page: the console's CSP allows no injected script tag.
    await page.evaluate(AXE);
    const violations: { id: string; impact: string; nodes: number }[] = await page.evaluate(`axe.run(document, { resultTypes: ['violations'] })
      .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length })))`);
    expect({ screen: name, serious: violations.filter((v) => v.impact === 'serious' || v.impact === 'critical') }).toEqual({ screen: name, serious: [] });
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
  };

  const signInFirstTime = async (op: NewOperator) => {
    await context.clearCookies();
    await page.goto(url('/'));
    await page.getByLabel('Email').fill(op.email);
    await page.getByLabel('Password').fill(op.password);
    await page.getByLabel('Password').press('Enter');
    const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
    await page.getByLabel('First code from the app').fill(currentCode(secret));
    await page.getByLabel('First code from the app').press('Enter');
    await page.getByRole('heading', { name: 'Keep your recovery codes' }).waitFor();
    await page.getByRole('button', { name: /continue/ }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    return secret;
  };

  return { browser, context, page, problems, url, screen, signInFirstTime, close: () => browser.close() };
}
