import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { buildDocuments, DOCUMENT_NAMES } from '@relay/openapi';
import { startPlatform, type TestPlatform } from '../platform';

/**
 * GET /docs in Debian's Chromium with every request off this machine refused: the interactive
 * reference must render each of the four documents from the gateway alone (no CDN, no fonts from
 * elsewhere) and list every operation. Screenshots go to test-output/docs/ for review.
 */
const SHOTS = path.resolve(__dirname, '..', '..', 'test-output', 'docs');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
const documents = buildDocuments();

describe('the interactive API reference in a browser', () => {
  let p: TestPlatform;
  let browser: Browser;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    p = await startPlatform({ services: [] });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  }, 60000);

  afterAll(async () => {
    await browser?.close();
    await p?.stop();
  });

  it.each(DOCUMENT_NAMES)('When /docs?api=%s opens with the network cut off, then every operation of that document is listed', async (name) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const blocked: string[] = [];
    const failed: string[] = [];
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (LOOPBACK.has(url.hostname)) return route.continue();
      blocked.push(url.href);
      return route.abort('internetdisconnected');
    });
    const page = await context.newPage();
    page.on('requestfailed', (r) => failed.push(`${r.url()} ${r.failure()?.errorText}`));
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    try {
      await page.goto(`${p.baseUrl}/docs?api=${name}`);
      const doc = documents[name] as { info: { title: string }; paths: Record<string, Record<string, unknown>> };
      await page.waitForSelector(`text=${doc.info.title}`, { timeout: 20000 });
      const expected = Object.entries(doc.paths).flatMap(([route, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${route}`)).sort();
      // (Runs in the page; the tests are typed without the DOM library.)
      type InPage = { document: { querySelectorAll(selector: string): { length: number } } };
      await page.waitForFunction((n) => (globalThis as unknown as InPage).document.querySelectorAll('.opblock').length >= n, expected.length, { timeout: 20000 });
      const listed = await page.$$eval('.opblock', (blocks) =>
        blocks.map((b) => `${b.querySelector('.opblock-summary-method')?.textContent?.trim()} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`),
      );
      await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
      expect(listed.sort()).toEqual(expected);
      expect({ blocked, failed, errors }).toEqual({ blocked: [], failed: [], errors: [] });
    } finally {
      await context.close();
    }
  }, 60000);
});
