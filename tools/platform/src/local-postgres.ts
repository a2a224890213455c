import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { walLevelOf } from '@relay/shared';

/**
 * A PostgreSQL server the platform can run on, on this machine: the money database publishes its
 * ledger to the reporting database by logical replication, which needs `wal_level = logical`
 * (Debian's default is `replica`). The demo and the test suite use the server at 127.0.0.1:5432
 * when it already has that setting; otherwise they run a cluster of their own from the server
 * binaries installed on the machine, on its own port, and leave the machine's server untouched.
 *
 * PostgreSQL refuses to run as root: when we are root the cluster belongs to the `postgres` user
 * that Debian's server package creates, and every server command runs as that user.
 */

export interface LocalServer {
  /** `postgres://postgres@127.0.0.1:PORT`, without a database name. */
  baseUrl: string;
  /** Where the cluster lives; undefined for the machine's own server. */
  dataDir?: string;
  /** pg_ctl start/stop/restart for a cluster of our own (tests stop it to prove faults lose nothing). */
  control?: (action: 'start' | 'stop' | 'restart') => void;
}

/** The settings a cluster of our own runs with: logical replication and room for every test run's subscription. */
export const LOCAL_SETTINGS: Record<string, string> = {
  wal_level: 'logical',
  max_replication_slots: '40',
  max_wal_senders: '40',
  max_logical_replication_workers: '16',
  max_sync_workers_per_subscription: '4',
  max_worker_processes: '32',
  // A slot nobody reads must not fill the disk: the slot is invalidated past this much retained WAL.
  max_slot_wal_keep_size: '2GB',
  max_connections: '300',
  shared_buffers: '256MB',
  listen_addresses: "'127.0.0.1'",
};

const DEFAULT_PORT = 5439;

/** The server's wal_level, or undefined when it does not answer (walLevelOf, through its `postgres` database). */
export function walLevel(baseUrl: string): Promise<string | undefined> {
  return walLevelOf(`${baseUrl}/postgres`).catch(() => undefined);
}

/** The newest server binaries installed (Debian: /usr/lib/postgresql/<major>/bin). */
export function serverBinaries(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).filter((d) => existsSync(join(root, d, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a)) : [];
  if (!majors.length) throw new Error(`no PostgreSQL server binaries under ${root} (apt-get install postgresql)`);
  return join(root, majors[0], 'bin');
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a server binary, as `postgres` when we are root. */
function runServerCommand(binary: string, args: string[]): void {
  const command = isRoot() ? 'runuser' : binary;
  const argv = isRoot() ? ['-u', 'postgres', '--', binary, ...args] : args;
  const result = spawnSync(command, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) throw new Error(`${binary} ${args.join(' ')} failed: ${(result.stderr || result.stdout || '').trim()}`);
}

/**
 * A cluster of our own on `port`, created on first use (initdb) and started when it is not running.
 * It stays running for the next run (like the machine's own server); its databases are each run's own.
 */
export async function ownCluster(port = DEFAULT_PORT): Promise<LocalServer> {
  const bin = serverBinaries();
  const owner = isRoot() ? 'postgres' : String(process.getuid?.() ?? 'user');
  const dataDir = join(tmpdir(), `relay-postgres-${owner}-${port}`);
  const baseUrl = `postgres://postgres@127.0.0.1:${port}`;
  const control = (action: 'start' | 'stop' | 'restart') => {
    const args = ['-D', dataDir, '-w', '-t', '60', '-l', join(dataDir, 'server.log'), action];
    if (action !== 'start') args.splice(args.length - 1, 0, '-m', 'fast');
    runServerCommand(join(bin, 'pg_ctl'), args);
  };
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    if (isRoot()) execFileSync('chown', ['postgres:postgres', dataDir]);
    runServerCommand(join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8']);
    const conf = Object.entries({ ...LOCAL_SETTINGS, port: String(port), unix_socket_directories: `'${dataDir}'` })
      .map(([k, v]) => `${k} = ${v}`)
      .join('\n');
    const confPath = join(dataDir, 'postgresql.auto.conf');
    writeFileSync(confPath, `${conf}\n`);
    if (isRoot()) execFileSync('chown', ['postgres:postgres', confPath]);
  }
  if ((await walLevel(baseUrl)) === undefined) control('start');
  const level = await walLevel(baseUrl);
  if (level !== 'logical') throw new Error(`the cluster in ${dataDir} answers wal_level=${level ?? 'nothing'}`);
  return { baseUrl, dataDir, control };
}

/**
 * The server the demo and the tests run on: `explicit` when given (it must have wal_level=logical),
 * else the machine's server at 127.0.0.1:5432 when it has it, else a cluster of our own.
 */
export async function localServer(explicit?: string): Promise<LocalServer> {
  if (explicit) {
    const level = await walLevel(explicit);
    if (level !== 'logical') throw new Error(`${explicit} answers wal_level=${level ?? 'nothing (unreachable)'}; the reporting database's subscription needs wal_level=logical`);
    return { baseUrl: explicit };
  }
  const machine = 'postgres://postgres@127.0.0.1:5432';
  if ((await walLevel(machine)) === 'logical') return { baseUrl: machine };
  return ownCluster(Number(process.env.RELAY_LOCAL_PG_PORT ?? DEFAULT_PORT));
}
