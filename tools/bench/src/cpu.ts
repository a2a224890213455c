import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import pg from 'pg';
import { subscriptionName } from '@relay/shared';

/** A process's CPU ticks so far; `part`: what it is within its label, when worth its own line (postgresPart). */
export interface ProcessTicks {
  label: string;
  ticks: number;
  part?: string;
}

/**
 * Where the CPU of a benchmark phase went, per process, from Linux's own counters (/proc): the
 * processes of the platform (by script), PostgreSQL and Redis (every process of theirs, so the
 * WAL writer counts too, and so do the WAL sender and the logical replication apply worker that
 * carry the money database's writes to its reporting database), the sandbox casino and the load
 * generator, and what stayed idle. Read as CPU milliseconds per call it is the budget view of a
 * throughput target: at R calls per second, N cores leave N * 1000 / R ms of CPU per call for
 * everything together.
 */
export interface CpuSnapshot {
  at: bigint;
  perProcess: Map<number, ProcessTicks>;
  idleTicks: number;
  /** Time the hypervisor gave this virtual machine's CPUs to someone else. */
  stealTicks: number;
}

export interface CpuShare {
  label: string;
  msPerCall: number;
}

const TICKS_PER_SECOND = clockTicks();

function clockTicks(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

/** Labels a process by what it runs (its parent's pid beside); null for processes the benchmark does not account. */
export type Labeler = (pid: number, comm: string, cmdline: string, ppid?: number) => string | null;

/**
 * A run's own processes of a PostgreSQL cluster beyond the backends of its databases: the
 * cluster's postmaster (every process of the cluster is its child), the subscriptions of its
 * reporting database (their workers name them) and the WAL senders that stream to them (their
 * title names a user and a client, never a database: they are known by their slot's active_pid).
 */
export interface PostgresProcesses {
  postmaster?: number;
  subscriptions: number[];
  walSenders: Set<number>;
}

export interface BenchScope {
  /** Only scripts under this checkout. */
  root?: string;
  /** The databases whose backends are this run's: its money database and its reporting database. */
  databases?: string[];
  postgres?: PostgresProcesses;
}

// "postgres: [cluster: ]walsender user host(port) ...": a WAL sender, logical or physical.
const WAL_SENDER = /^postgres: (?:\S+: )?walsender /;
// "logical replication worker for subscription N" (15), "... apply worker ..." / "... tablesync worker ... sync M" (16+).
const REPLICATION_WORKER = /^postgres: (?:\S+: )?logical replication (?:[\w ]+ )?worker for subscription (\d+)/;

/** The part of PostgreSQL a process is, when it is replication's: its CPU gets its own line beside PostgreSQL's whole. */
export function postgresPart(comm: string, cmdline: string): string | undefined {
  if (comm !== 'postgres') return undefined;
  if (WAL_SENDER.test(cmdline)) return 'WAL sender';
  if (REPLICATION_WORKER.test(cmdline)) return 'logical replication apply worker';
  return undefined;
}

/**
 * The platform's processes by script, PostgreSQL, Redis, and the given pids by name. On a machine
 * shared with other runs, `scope` keeps their processes out: only scripts under `root` (this
 * checkout); of PostgreSQL, only the processes of this run's cluster (`postgres.postmaster`), of
 * their backends only those connected to `databases`, of the WAL senders and logical replication
 * workers only those of this run's subscription (`postgres`); the cluster's background processes,
 * the WAL writer among them, serve every database and are always counted.
 */
export function benchLabeler(named: Record<number, string>, scope: BenchScope = {}): Labeler {
  return (pid, comm, cmdline, ppid) => {
    if (named[pid]) return named[pid];
    if (comm === 'postgres') {
      const own = scope.postgres;
      if (own?.postmaster !== undefined && pid !== own.postmaster && ppid !== own.postmaster) return null; // another cluster
      // Before the backends' pattern, which would read a WAL sender's user as its database.
      if (WAL_SENDER.test(cmdline)) return !scope.databases || own?.walSenders.has(pid) ? 'PostgreSQL' : null;
      const worker = REPLICATION_WORKER.exec(cmdline);
      if (worker) return !scope.databases || own?.subscriptions.includes(Number(worker[1])) ? 'PostgreSQL' : null;
      // A backend: "postgres: [cluster: ]user database host(port)|[local] state".
      const backend = / (\S+) (\S+) (?:[\d.:a-f]+\(\d+\)|\[local\])/.exec(cmdline);
      if (scope.databases && backend && !scope.databases.includes(backend[2])) return null;
      return 'PostgreSQL';
    }
    if (comm === 'redis-server') return 'Redis';
    const script = /(?:services|tools)\/([\w-]+)\/dist\/(\w+)\.js/.exec(cmdline);
    if (!script) return null;
    if (scope.root && !cmdline.includes(`${scope.root}/`)) return null;
    if (script[1] === 'notifier' && script[2] === 'worker') return 'notifier worker';
    return script[1];
  };
}

/**
 * This run's PostgreSQL processes beyond its backends (PostgresProcesses), read from its money
 * database and its reporting database; `refresh` reads again the pids that change when a WAL
 * sender is restarted (call it before each snapshot). The postmaster is known only when the server
 * runs on this machine (the parent of this connection's backend).
 */
export async function postgresProcesses(moneyUrl: string, reportingUrl: string): Promise<{ processes: PostgresProcesses; refresh: () => Promise<void>; close: () => Promise<void> }> {
  const money = new pg.Client({ connectionString: moneyUrl, application_name: 'relay-bench-cpu' });
  const reporting = new pg.Client({ connectionString: reportingUrl, application_name: 'relay-bench-cpu' });
  await money.connect();
  await reporting.connect();
  const name = subscriptionName(reportingUrl);
  const processes: PostgresProcesses = { subscriptions: [], walSenders: new Set() };
  const backend = (await money.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
  processes.postmaster = parentOf(backend);
  const refresh = async () => {
    const subs = await reporting.query<{ oid: number }>('SELECT oid::int8 AS oid FROM pg_subscription WHERE subname = $1', [name]);
    processes.subscriptions = subs.rows.map((r) => Number(r.oid));
    // The subscription's slot, and while a table's first copy runs, its table-sync slot (pg_<subscription>_sync_<table>_<system>).
    const senders = await money.query<{ pid: number }>(
      `SELECT active_pid AS pid FROM pg_replication_slots
        WHERE (slot_name = $1 OR slot_name LIKE ANY (SELECT 'pg\\_' || s || '\\_sync\\_%' FROM unnest($2::int8[]) s)) AND active_pid IS NOT NULL`,
      [name, processes.subscriptions],
    );
    processes.walSenders.clear();
    for (const r of senders.rows) processes.walSenders.add(Number(r.pid));
  };
  await refresh();
  const close = async () => {
    await money.end().catch(() => undefined);
    await reporting.end().catch(() => undefined);
  };
  return { processes, refresh, close };
}

function parentOf(pid: number): number | undefined {
  const stat = (of: number) => {
    try {
      const text = readFileSync(`/proc/${of}/stat`, 'utf8');
      return { comm: text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')), ppid: Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]) };
    } catch {
      return undefined;
    }
  };
  // Only when that pid is a PostgreSQL backend here, child of a PostgreSQL postmaster: else the server is elsewhere.
  const backend = stat(pid);
  if (backend?.comm !== 'postgres' || stat(backend.ppid)?.comm !== 'postgres') return undefined;
  return backend.ppid;
}

/** One process's CPU ticks so far, labelled; null when the labeler leaves it out or it has ended. */
function readProcess(pid: number, label: Labeler): ProcessTicks | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    // Fields after the command: state is [0], ppid [1], utime [11], stime [12].
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const name = label(pid, comm, cmdline, Number(fields[1]));
    if (!name) return null;
    return { label: name, ticks: Number(fields[11]) + Number(fields[12]), part: postgresPart(comm, cmdline) };
  } catch {
    return null; // the process ended between listing and reading
  }
}

export function snapshot(label: Labeler): CpuSnapshot {
  const perProcess = new Map<number, ProcessTicks>();
  if (process.platform !== 'linux') return { at: process.hrtime.bigint(), perProcess, idleTicks: 0, stealTicks: 0 };
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const read = readProcess(Number(entry), label);
    if (read) perProcess.set(Number(entry), read);
  }
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  // cpu user nice system idle iowait irq softirq steal ...
  return { at: process.hrtime.bigint(), perProcess, idleTicks: Number(cpu[4]) + Number(cpu[5]), stealTicks: Number(cpu[8] ?? 0) };
}

/**
 * A process that ends before a phase's last snapshot takes its CPU with it: the backends of a
 * client that disconnects (pgbench's, at the end of its run), an autovacuum worker done with its
 * table. Every `everyMs` while a phase runs this reads the children of the cluster's postmaster;
 * `settle` stops and returns the phase's last snapshot with each of them that ended added as last
 * seen, so at most `everyMs` of such a process's CPU is missed. Without a postmaster (a server not
 * on this machine) it does nothing.
 */
export function watchEnding(label: Labeler, postmaster: number | undefined, everyMs = 100): { settle: (after: CpuSnapshot) => CpuSnapshot } {
  const seen = new Map<number, ProcessTicks>();
  const read = () => {
    let children: string;
    try {
      children = readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8');
    } catch {
      return; // the kernel does not list children: nothing is watched
    }
    for (const pid of children.split(' ').filter(Boolean).map(Number)) {
      const ticks = readProcess(pid, label);
      if (ticks) seen.set(pid, ticks);
    }
  };
  const timer = postmaster === undefined || process.platform !== 'linux' ? undefined : setInterval(read, everyMs);
  if (timer) read();
  return {
    settle: (after) => {
      clearInterval(timer);
      const perProcess = new Map(after.perProcess);
      for (const [pid, last] of seen) if (!perProcess.has(pid)) perProcess.set(pid, last);
      return { ...after, perProcess };
    },
  };
}

/** CPU milliseconds per call between two snapshots: each label's, and what no accounted process used. */
export interface CpuPerCall {
  /** Per label, largest first. */
  processes: CpuShare[];
  /** Parts of a label worth their own line (postgresPart), each counted in its label's share too. */
  parts?: (CpuShare & { of: string })[];
  /** CPU left unused (idle and I/O wait). */
  idle: number;
  /** Time the hypervisor gave the machine's CPUs to other guests. */
  steal: number;
  /** The rest of the cores' capacity: kernel threads and processes no label claims. */
  other: number;
}

/** Several phases' CPU per call as one, each weighted by its calls. */
export function combinePerCall(parts: { cpu: CpuPerCall | null; calls: number }[]): CpuPerCall | null {
  const counted = parts.filter((p): p is { cpu: CpuPerCall; calls: number } => p.cpu !== null && p.calls > 0);
  const calls = counted.reduce((sum, p) => sum + p.calls, 0);
  if (calls === 0) return null;
  const mean = (of: (cpu: CpuPerCall) => number) => counted.reduce((sum, p) => sum + of(p.cpu) * p.calls, 0) / calls;
  const labels = [...new Set(counted.flatMap((p) => p.cpu.processes.map((s) => s.label)))];
  const processes = labels.map((label) => ({ label, msPerCall: mean((cpu) => cpu.processes.find((s) => s.label === label)?.msPerCall ?? 0) }));
  processes.sort((a, b) => b.msPerCall - a.msPerCall);
  const partKeys = [...new Map(counted.flatMap((p) => (p.cpu.parts ?? []).map((s) => [`${s.of}\0${s.label}`, s] as const))).values()];
  const shares = partKeys.map(({ of, label }) => ({ of, label, msPerCall: mean((cpu) => cpu.parts?.find((s) => s.of === of && s.label === label)?.msPerCall ?? 0) }));
  return { processes, parts: shares, idle: mean((cpu) => cpu.idle), steal: mean((cpu) => cpu.steal), other: mean((cpu) => cpu.other) };
}

export function perCall(before: CpuSnapshot, after: CpuSnapshot, calls: number): CpuPerCall | null {
  if (calls <= 0 || after.perProcess.size === 0) return null;
  const msPerTick = 1000 / TICKS_PER_SECOND;
  const byLabel = new Map<string, number>();
  const byPart = new Map<string, { of: string; label: string; ticks: number }>();
  for (const [pid, now] of after.perProcess) {
    const then = before.perProcess.get(pid)?.ticks ?? 0; // a process started during the phase
    byLabel.set(now.label, (byLabel.get(now.label) ?? 0) + (now.ticks - then));
    if (now.part) {
      const key = `${now.label}\0${now.part}`;
      const part = byPart.get(key) ?? { of: now.label, label: now.part, ticks: 0 };
      part.ticks += now.ticks - then;
      byPart.set(key, part);
    }
  }
  const processes = [...byLabel].map(([label, ticks]) => ({ label, msPerCall: (ticks * msPerTick) / calls })).filter((s) => s.msPerCall > 0);
  processes.sort((a, b) => b.msPerCall - a.msPerCall);
  // A part that used no CPU in the phase stays listed (at 0): it was there and counted.
  const parts = [...byPart.values()].map(({ of, label, ticks }) => ({ of, label, msPerCall: (ticks * msPerTick) / calls }));
  const capacity = (Number(after.at - before.at) / 1e6) * os.cpus().length / calls;
  const idle = ((after.idleTicks - before.idleTicks) * msPerTick) / calls;
  const steal = ((after.stealTicks - before.stealTicks) * msPerTick) / calls;
  const used = processes.reduce((sum, s) => sum + s.msPerCall, 0);
  return { processes, parts, idle, steal, other: Math.max(0, capacity - used - idle - steal) };
}
