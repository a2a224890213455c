import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { dropDatabase, dropSubscription, walLevelOf } from '@relay/shared';
import { freePort } from './processes';

/**
 * `npm start` as an operator runs it: the built platform in the foreground, every service in its own
 * process, migrations first on a database that does not exist yet. Needs `npm run build` (pretest).
 */
const ROOT = path.resolve(__dirname, '..');

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm start', () => {
  // The suite's server (wal_level=logical; test/global-setup.ts).
  const dbUrl = `${process.env.TEST_DATABASE_BASE_URL}/relay_start_${Date.now()}_${randomBytes(3).toString('hex')}`;
  // DROP DATABASE waits for a checkpoint: many seconds while the database is busy writing.
  afterAll(async () => {
    await dropSubscription(dbUrl, `${dbUrl}_reporting`);
    await dropDatabase(`${dbUrl}_reporting`);
    await dropDatabase(dbUrl);
  }, 120_000);

  it('When the server runs with wal_level=replica (Debian\'s default), then npm start stops at once with a message naming wal_level', async () => {
    // The machine's own server when it has Debian's default; a suite run on a logical server has no such server to try.
    const machine = 'postgres://postgres@127.0.0.1:5432';
    const level = await walLevelOf(machine).catch(() => undefined);
    if (level === undefined || level === 'logical') return;
    const name = `relay_start_replica_${Date.now()}`;
    const { REPORTING_DATABASE_URL: _ignored, ...inherited } = process.env;
    const child = spawn(process.execPath, [path.join(ROOT, 'tools/platform/dist/start.js')], {
      env: { ...inherited, NODE_ENV: 'development', DATABASE_URL: `${machine}/${name}`, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stderr!.on('data', (d) => (output += d));
    child.stdout!.on('data', (d) => (output += d));
    const code = await exited(child);
    await dropDatabase(`${machine}/${name}`);
    expect(code).toBe(1);
    expect(output).toMatch(/wal_level=replica.*needs wal_level=logical/);
  }, 60000);

  it('When the platform starts on a fresh database, then its reporting database is created, migrated and subscribed, /readyz answers 200, a killed service is restarted while the others serve, and SIGTERM stops every process', async () => {
    const ports = await Promise.all(Array.from({ length: 7 }, freePort));
    const { REPORTING_DATABASE_URL: _ignored, ...inherited } = process.env;
    const env = {
      ...inherited,
      NODE_ENV: 'development',
      DATABASE_URL: dbUrl,
      REDIS_KEY_PREFIX: `start_${process.pid}`,
      GATEWAY_PORT: String(ports[0]),
      GATEWAY_HOST: '127.0.0.1',
      LAUNCHER_PORT: String(ports[1]),
      WALLET_PORT: String(ports[2]),
      REPORTING_PORT: String(ports[3]),
      NOTIFIER_PORT: String(ports[4]),
      ADMIN_PORT: String(ports[5]),
      BACKOFFICE_PORT: String(ports[6]),
      LOG_LEVEL: 'warn',
    };
    const child = spawn(process.execPath, [path.join(ROOT, 'tools/platform/dist/start.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const done = exited(child);
    try {

    let ready: { status: number; body: any } | null = null;
    for (let i = 0; i < 120 && !ready; i++) {
      await new Promise((r) => setTimeout(r, 250));
      try {
        // The gateway is ready once its own PostgreSQL and Redis are; the services behind it are
        // listed for information and come up in their own time: wait until every one is ok.
        const res = await fetch(`http://127.0.0.1:${ports[0]}/readyz`);
        const body = (await res.json()) as { checks: Record<string, string> };
        if (res.status === 200 && Object.values(body.checks).every((c) => c === 'ok')) ready = { status: res.status, body };
      } catch {
        // not listening yet
      }
    }
    expect(ready?.body).toMatchObject({ status: 'ready' });
    expect(Object.values(ready!.body.checks).every((c) => c === 'ok')).toBe(true);
    // The reporting database (the default name: the money database's plus _reporting) subscribes to the money database.
    expect(output).toMatch(/reporting database subscribed to the money database/);
    expect(await walLevelOf(`${dbUrl}_reporting`)).toBe('logical');

    // Every service answers on its own port, in its own process.
    const pids = new Set<number>();
    for (const port of ports) {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(res.status).toBe(200);
    }
    const children = await listChildren(child.pid!);
    for (const pid of children) pids.add(pid);
    expect(pids.size).toBeGreaterThanOrEqual(7);

    // One service killed outright: the others keep serving, and it is back within seconds.
    const wallet = await processRunning(children, 'services/wallet/dist/main.js');
    process.kill(wallet, 'SIGKILL');
    let back: number | undefined;
    for (let i = 0; i < 80 && back === undefined; i++) {
      await new Promise((r) => setTimeout(r, 250));
      expect((await fetch(`http://127.0.0.1:${ports[0]}/readyz`)).status).toBe(200);
      const res = await fetch(`http://127.0.0.1:${ports[2]}/readyz`).catch(() => null);
      if (res?.status === 200) back = await processRunning(await listChildren(child.pid!), 'services/wallet/dist/main.js');
    }
    expect(back).toBeDefined();
    expect(back).not.toBe(wallet);
    for (const pid of children.filter((p) => p !== wallet)) expect(alive(pid)).toBe(true);
    expect(output).toMatch(/wallet exited unexpectedly; restarting it in \d+ ms/);
    pids.add(back!);

    child.kill('SIGTERM');
    const code = await done;
    expect({ code, output: code === 0 ? '' : output }).toEqual({ code: 0, output: '' });
    for (const pid of pids) expect(alive(pid)).toBe(false);
    } finally {
      if (child.exitCode === null) {
        for (const pid of await listChildren(child.pid!)) process.kill(pid, 'SIGKILL');
        child.kill('SIGKILL');
      }
    }
  }, 60000);
});

/** The pid among `pids` whose command line runs `script`. */
async function processRunning(pids: number[], script: string): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  for (const pid of pids) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(script)) return pid;
  }
  throw new Error(`no process runs ${script}`);
}

async function listChildren(pid: number): Promise<number[]> {
  const { readFile, readdir } = await import('node:fs/promises');
  const result: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) result.push(Number(entry));
    } catch {
      // process went away
    }
  }
  return result;
}
