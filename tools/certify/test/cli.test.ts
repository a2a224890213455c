import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CasinoSandbox } from '@relay/casino-sandbox';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { configInput, run, sandboxCasino } from './support';

/** The commands a casino runs, as real processes: `npm run certify`, `npx relay-certify`, the bin itself. */
// Starting npm, npx and node several times in one test is slow on a busy machine.
jest.setTimeout(120_000);
const BIN = 'tools/certify/bin/relay-certify.js';
let honest: CasinoSandbox;
let broken: CasinoSandbox;
let dir: string;

beforeAll(async () => {
  [honest, broken] = await Promise.all([sandboxCasino(), sandboxCasino(['no-signature-check'])]);
  dir = await mkdtemp(path.join(os.tmpdir(), 'relay-certify-'));
});

afterAll(async () => {
  await Promise.all([honest.close(), broken.close()]);
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, content: unknown): Promise<string> {
  const target = path.join(dir, name);
  await writeFile(target, typeof content === 'string' ? content : JSON.stringify(content));
  return target;
}

interface JsonReport {
  checks: { id: string; required: boolean; status: string; detail: string }[];
}

describe('relay-certify command', () => {
  it('When `npm run certify` runs against the honest sandbox, then it exits 0, prints the table and writes well-formed --json and --junit files', async () => {
    const cfg = await file('honest.json', configInput(honest));
    const [json, junit] = [path.join(dir, 'honest-report.json'), path.join(dir, 'honest-report.xml')];
    const r = await run('npm', ['run', '--silent', 'certify', '--', 'casino', '--config', cfg, '--json', json, '--junit', junit]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/│ check\s+│ kind\s+│ result\s+│ sent\s+│ received\s+│ why it matters\s+│/);
    expect(r.stdout).toMatch(/│ debit-concurrent\s+│ required │ PASS/);
    expect(r.stdout).toContain('CERTIFIED: every required check passed');

    const report = JSON.parse(await readFile(json, 'utf8')) as JsonReport;
    expect(report.checks).toHaveLength(20);
    for (const c of report.checks) expect(Object.keys(c)).toEqual(expect.arrayContaining(['id', 'required', 'status', 'detail']));
    expect(report.checks.every((c) => c.status === 'pass')).toBe(true);

    const xml = await readFile(junit, 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml) as { testsuites: { testsuite: { failures: string; testcase: { name: string }[] } } };
    expect(parsed.testsuites.testsuite.failures).toBe('0');
    expect(parsed.testsuites.testsuite.testcase.map((t) => t.name)).toEqual(report.checks.map((c) => c.id));
  });

  it('When `npx relay-certify` runs against a wallet that skips the signature check, then it exits 1 and the JUnit file holds that one failure', async () => {
    const cfg = await file('broken.json', configInput(broken));
    const junit = path.join(dir, 'broken-report.xml');
    const json = path.join(dir, 'broken-report.json');
    const r = await run('npx', ['--no-install', 'relay-certify', 'casino', '--config', cfg, '--junit', junit, '--json', json]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/│ signature-refused\s+│ required │ FAIL/);
    expect(r.stdout).toContain('NOT CERTIFIED: a required check failed');
    const report = JSON.parse(await readFile(json, 'utf8')) as JsonReport;
    expect(report.checks.filter((c) => c.status === 'fail').map((c) => c.id)).toEqual(['signature-refused']);
    const xml = await readFile(junit, 'utf8');
    expect(XMLValidator.validate(xml)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml) as {
      testsuites: { testsuite: { failures: string; testcase: { name: string; failure?: { message: string } }[] } };
    };
    expect(parsed.testsuites.testsuite.failures).toBe('1');
    expect(parsed.testsuites.testsuite.testcase.filter((t) => t.failure).map((t) => [t.name, t.failure?.message])).toEqual([
      ['signature-refused', expect.stringMatching(/^expected a 4xx refusal, got 200; the balance moved from 150 to 149$/)],
    ]);
  });

  it('When npm started the command from another directory, then relative --config and --json paths mean that directory', async () => {
    await file('relative.json', configInput(honest));
    const r = await run('node', [BIN, 'casino', '--config', 'relative.json', '--json', 'relative-report.json'], { INIT_CWD: dir });
    expect(r.code).toBe(0);
    expect(JSON.parse(await readFile(path.join(dir, 'relative-report.json'), 'utf8'))).toHaveProperty('checks');
  });

  it('When the config is missing, not JSON, or wrong, then it exits 2 naming the problem and never echoing a secret', async () => {
    const noFile = await run('node', [BIN, 'casino', '--config', path.join(dir, 'absent.json')]);
    expect(noFile).toMatchObject({ code: 2, stderr: expect.stringContaining('cannot read the config file') });

    const notJson = await run('node', [BIN, 'casino', '--config', await file('not.json', '{"walletUrl": ')]);
    expect(notJson).toMatchObject({ code: 2, stderr: expect.stringContaining('is not JSON') });

    const input = configInput(honest);
    const wrong = await run('node', [BIN, 'casino', '--config', await file('wrong.json', { ...input, currency: 'euro', players: { fundded: input.players.funded } })]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/bad config: .*currency: must be a three-letter code/);
    expect(wrong.stderr).toMatch(/players\.funded/);
    expect(wrong.stderr).not.toContain('wt-funded-secret');
    expect(wrong.stdout).toBe('');
  });

  it('When the command line is wrong, then it exits 2 with the usage', async () => {
    for (const args of [[], ['casino'], ['studio', '--config', 'x.json'], ['casino', '--config', 'x.json', '--colour']]) {
      const r = await run('node', [BIN, ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('usage: relay-certify casino --config FILE [--json FILE] [--junit FILE]');
    }
  });

  it('When the wallet cannot be reached at all, then it exits 2 and says so', async () => {
    const gone = await sandboxCasino();
    const input = configInput(gone);
    await gone.close();
    const url = new URL(input.walletUrl);
    url.username = 'casino-user';
    url.password = 'casino-password';
    url.search = '?apiKey=casino-api-key';
    const r = await run('node', [BIN, 'casino', '--config', await file('gone.json', { ...input, walletUrl: url.toString() })]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`cannot reach the wallet at ${input.walletUrl}: connection refused`);
    for (const secret of ['casino-user', 'casino-password', 'casino-api-key']) expect(r.stderr).not.toContain(secret);
  });

  it('When the funded player holds less than 100, then it exits 2 before moving any money', async () => {
    const sandbox = await sandboxCasino();
    try {
      sandbox.setBalance('certify-casino', 'funded-1', '99.99');
      const journal = sandbox.journal().length;
      const r = await run('node', [BIN, 'casino', '--config', await file('small.json', configInput(sandbox))]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('the funded player holds 99.99 EUR; the kit needs at least 100.00 EUR');
      expect(sandbox.journal()).toHaveLength(journal);
    } finally {
      await sandbox.close();
    }
  });
});
