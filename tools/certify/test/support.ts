import { spawn } from 'node:child_process';
import path from 'node:path';
import { startCasinoSandbox, type CasinoSandbox, type SandboxBreak } from '@relay/casino-sandbox';
import { parseConfig, type CertifyConfig, type ConfigInput } from '../src';

/** A sandbox casino on port 0 with the three test players the kit's config names. */
export const PROVIDER = 'certify-casino';
export const SECRET = 'certify-wallet-secret';
export const START = { funded: '150.00', poor: '0.50' };
export const REPO_ROOT = path.resolve(__dirname, '../../..');

export async function sandboxCasino(breaks: SandboxBreak[] = []): Promise<CasinoSandbox> {
  const sandbox = await startCasinoSandbox({ walletSecret: SECRET, breaks });
  sandbox.addPlayer({ providerId: PROVIDER, playerId: 'funded-1', walletToken: 'wt-funded-secret', balance: START.funded });
  sandbox.addPlayer({ providerId: PROVIDER, playerId: 'poor-1', walletToken: 'wt-poor-secret', balance: START.poor });
  // The casino issued this player a new token; the config holds the old one.
  sandbox.addPlayer({ providerId: PROVIDER, playerId: 'expired-1', walletToken: 'wt-expired-current', balance: 10 });
  return sandbox;
}

export function configInput(sandbox: CasinoSandbox, players: Partial<Record<'poor' | 'expired', false>> = {}): ConfigInput {
  return {
    walletUrl: sandbox.walletUrlFor(PROVIDER),
    walletSecret: SECRET,
    providerId: PROVIDER,
    currency: 'EUR',
    players: {
      funded: { playerId: 'funded-1', walletToken: 'wt-funded-secret' },
      ...(players.poor === false ? {} : { poor: { playerId: 'poor-1', walletToken: 'wt-poor-secret' } }),
      ...(players.expired === false ? {} : { expired: { playerId: 'expired-1', walletToken: 'wt-expired-old' } }),
    },
    timeoutMs: 5000,
    // The machine running the tests may be busy: latency findings are tested on purpose, with a delay above this.
    latencyTargetMs: 2000,
  };
}

export function config(sandbox: CasinoSandbox, players?: Partial<Record<'poor' | 'expired', false>>): CertifyConfig {
  return parseConfig(configInput(sandbox, players));
}

/** Exact balances of the sandbox's test players. */
export function balances(sandbox: CasinoSandbox): Record<string, string> {
  return Object.fromEntries(sandbox.ledger({ providerId: PROVIDER }).map((p) => [p.playerId, p.balanceText]));
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command from the repository root without blocking this process (the sandbox lives here). */
export function run(command: string, args: string[], env: Record<string, string> = {}, timeoutMs = 60_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: REPO_ROOT, env: { ...process.env, NO_COLOR: '1', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
