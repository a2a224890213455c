import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { serverBinaries } from '../../../tools/platform/src/local-postgres';
import { http, type TestPlatform } from '../../platform';
import { sleep } from './money';

/**
 * Stopping and starting the machine's PostgreSQL and Redis for the disruptive outage tests. They
 * disturb everything else that uses them, so those tests run alone (`npm test`, second phase) and
 * always start the dependency again, even when the test fails.
 */
export interface Dependency {
  name: 'postgres' | 'redis';
  /** Why it cannot be controlled on this machine, or null. */
  unavailable: string | null;
  stop(): void;
  start(): void;
  isUp(): boolean;
}

const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { stdio: 'pipe', timeout: 60_000 }).toString();
const succeeds = (cmd: string, args: string[]) => {
  try {
    run(cmd, args);
    return true;
  } catch {
    return false;
  }
};

/**
 * The server the suite runs on: its own cluster (tools/platform/src/local-postgres.ts, when the
 * machine's has wal_level=replica), controlled with pg_ctl; else the machine's cluster
 * (`ls /etc/postgresql`), controlled with pg_ctlcluster.
 */
export function postgres(): Dependency {
  const own = process.env.TEST_POSTGRES_DATA_DIR;
  if (own) {
    const port = new URL(process.env.TEST_DATABASE_BASE_URL!).port;
    const bin = serverBinaries();
    const ctl = (action: string) => {
      const args = ['-D', own, '-w', '-t', '60', '-l', `${own}/server.log`, ...(action === 'stop' ? ['-m', 'fast'] : []), action];
      if (process.getuid?.() === 0) run('runuser', ['-u', 'postgres', '--', `${bin}/pg_ctl`, ...args]);
      else run(`${bin}/pg_ctl`, args);
    };
    return {
      name: 'postgres',
      unavailable: null,
      stop: () => ctl('stop'),
      start: () => ctl('start'),
      isUp: () => succeeds('pg_isready', ['-h', '127.0.0.1', '-p', port, '-t', '2']),
    };
  }
  let cluster: [string, string] | null = null;
  try {
    const version = fs.readdirSync('/etc/postgresql').sort().at(-1)!;
    cluster = [version, fs.readdirSync(`/etc/postgresql/${version}`)[0]];
  } catch {
    cluster = null;
  }
  const ctl = (action: string) => run('pg_ctlcluster', ['--skip-systemctl-redirect', cluster![0], cluster![1], action]);
  return {
    name: 'postgres',
    unavailable: !cluster
      ? 'no cluster under /etc/postgresql'
      : !succeeds('which', ['pg_ctlcluster'])
        ? 'pg_ctlcluster is not installed'
        : process.getuid?.() !== 0 && os.userInfo().username !== 'postgres'
          ? 'controlling the cluster needs root or the postgres user'
          : null,
    stop: () => ctl('stop'),
    start: () => ctl('start'),
    isUp: () => succeeds('pg_isready', ['-h', '127.0.0.1', '-p', '5432', '-t', '2']),
  };
}

/** The local Redis on 6379, stopped without saving and started again empty. */
export function redis(): Dependency {
  return {
    name: 'redis',
    unavailable: !succeeds('which', ['redis-server']) || !succeeds('which', ['redis-cli']) ? 'redis-server or redis-cli is not installed' : null,
    stop: () => {
      try {
        run('redis-cli', ['-h', '127.0.0.1', '-p', '6379', 'shutdown', 'nosave']);
      } catch {
        // redis-cli reports the closed connection of a shutdown as an error
      }
    },
    start: () => run('redis-server', ['--daemonize', 'yes', '--bind', '127.0.0.1', '--port', '6379', '--save', '', '--appendonly', 'no']),
    isUp: () => succeeds('redis-cli', ['-h', '127.0.0.1', '-p', '6379', 'ping']),
  };
}

/** Starts the dependency if it is down, waiting until it answers. */
export async function ensureUp(dep: Dependency): Promise<void> {
  if (dep.unavailable) return;
  if (!dep.isUp()) dep.start();
  for (let i = 0; i < 60 && !dep.isUp(); i++) await sleep(500);
}

export async function waitForDown(dep: Dependency): Promise<void> {
  for (let i = 0; i < 60 && dep.isUp(); i++) await sleep(100);
}

export interface Readiness {
  status: number;
  checks: Record<string, string>;
}

export async function readiness(url: string): Promise<Readiness> {
  try {
    const res = await http('GET', `${url}/readyz`);
    return { status: res.status, checks: res.body?.checks ?? {} };
  } catch {
    return { status: 0, checks: {} };
  }
}

/** Polls /readyz of the gateway and of every service until `want` holds for all of them. */
export async function waitForReadiness(p: TestPlatform, want: (r: Readiness) => boolean, ms: number): Promise<Record<string, Readiness>> {
  const urls = { gateway: p.baseUrl, ...Object.fromEntries(Object.entries(p.services).filter(([name]) => name !== 'gateway').map(([name, s]) => [name, s!.url])) };
  const end = Date.now() + ms;
  let last: Record<string, Readiness> = {};
  while (Date.now() < end) {
    last = Object.fromEntries(await Promise.all(Object.entries(urls).map(async ([name, url]) => [name, await readiness(url)] as const)));
    if (Object.values(last).every(want)) return last;
    await sleep(100);
  }
  throw new Error(`readiness never matched: ${JSON.stringify(last)}`);
}
