import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseSandboxBreaks, SANDBOX_BREAKS } from '@relay/casino-sandbox';
import { SECRET, balanceBody, debitBody, rawPost } from './support';

/** The rule-breaking switches as a casino's engineer uses them: on the sandbox process (env or flag). */
const MAIN = path.resolve(__dirname, '../dist/main.js');
const P = 'sbx-breaks-casino';
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
});

/** Starts the sandbox process on port 0 and resolves with its first log line (or its exit). */
function startProcess(args: string[], env: Record<string, string> = {}): Promise<{ line?: Record<string, unknown>; code?: number | null; stderr: string }> {
  const child = spawn(process.execPath, [MAIN, ...args], { env: { ...process.env, SANDBOX_PORT: '0', SANDBOX_QUIET: '1', SANDBOX_WALLET_SECRET: SECRET, ...env } });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (text) => resolve({ line: JSON.parse(text) as Record<string, unknown>, stderr }));
    child.once('exit', (code) => resolve({ code, stderr }));
  });
}

async function addPlayer(url: string): Promise<void> {
  await fetch(`${url}/_control/players`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ providerId: P, playerId: 'p1', walletToken: 'wt-1', balance: 10 }) });
}

describe('sandbox breaks on the command line and in the environment', () => {
  it('When the sandbox starts with --break no-signature-check, then it says so and a forged debit moves money', async () => {
    const started = await startProcess(['--break', 'no-signature-check']);
    expect(started.line).toMatchObject({ msg: 'casino sandbox listening', breaks: ['no-signature-check'] });
    const url = String(started.line?.url);
    await addPlayer(url);
    expect(await rawPost(`${url}/wallet/debit`, debitBody(P, 'p1', 'wt-1', 'tx-forged', 1), { secret: 'not-the-secret' })).toMatchObject({ status: 200, body: { balance: 9 } });
  });

  it('When SANDBOX_BREAK names two rules, then both are broken and the rest still hold', async () => {
    const started = await startProcess([], { SANDBOX_BREAK: 'accept-expired-tokens, round-ended-fails' });
    expect(started.line).toMatchObject({ breaks: ['accept-expired-tokens', 'round-ended-fails'] });
    const url = String(started.line?.url);
    await addPlayer(url);
    expect(await rawPost(`${url}/wallet/balance`, balanceBody(P, 'p1', 'an-old-token'))).toMatchObject({ status: 200, body: { balance: 10 } });
    expect((await rawPost(`${url}/wallet/round-ended`, { providerId: P, groupId: 'g', roundId: 'r' })).status).toBe(500);
    expect((await rawPost(`${url}/wallet/balance`, balanceBody(P, 'p1', 'wt-1'), { secret: 'not-the-secret' })).status).toBe(401);
  });

  it('When a break is misspelt, then the sandbox refuses to start and lists the known ones', async () => {
    const started = await startProcess(['--break', 'no-signature-chek']);
    expect(started.code).toBe(1);
    expect(started.stderr).toContain('unknown sandbox break no-signature-chek; known: no-signature-check, no-timestamp-check');
  });

  it('When asked with --list-breaks, then it prints every switch with what it breaks and exits', async () => {
    const child = spawn(process.execPath, [MAIN, '--list-breaks']);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise((resolve) => child.once('close', resolve));
    expect(code).toBe(0);
    expect(out.trim().split('\n').map((line) => line.split(/\s+/)[0])).toEqual(Object.keys(SANDBOX_BREAKS));
    expect(out).toContain('debit-race');
  });

  it('When the list is parsed, then names are trimmed and deduplicated, and an empty list breaks nothing', () => {
    expect(parseSandboxBreaks(' float-balance,float-balance ,')).toEqual(['float-balance']);
    expect(parseSandboxBreaks(undefined)).toEqual([]);
    expect(Object.keys(SANDBOX_BREAKS)).toHaveLength(14);
  });
});
