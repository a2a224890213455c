import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';

/**
 * Where the CPU of a benchmark phase went, per process, from Linux's own counters (/proc): the
 * processes of the platform (by script), PostgreSQL and Redis (every process of theirs, so the
 * WAL writer counts too), the sandbox casino and the load generator, and what stayed idle. Read
 * as CPU milliseconds per call it is the budget view of a throughput target: at R calls per
 * second, N cores leave N * 1000 / R ms of CPU per call for everything together.
 */
export interface CpuSnapshot {
  at: bigint;
  perProcess: Map<number, { label: string; ticks: number }>;
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

/** Labels a process by what it runs; null for processes the benchmark does not account. */
export type Labeler = (pid: number, comm: string, cmdline: string) => string | null;

/**
 * The platform's processes by script, PostgreSQL, Redis, and the given pids by name. On a machine
 * shared with other runs, `scope` keeps their processes out: only scripts under `root` (this
 * checkout), and of PostgreSQL's backends only those connected to `database` (its background
 * processes, the WAL writer among them, serve every database and are always counted).
 */
export function benchLabeler(named: Record<number, string>, scope: { root?: string; database?: string } = {}): Labeler {
  return (pid, comm, cmdline) => {
    if (named[pid]) return named[pid];
    if (comm === 'postgres') {
      // A backend: "postgres: [cluster: ]user database host(port)|[local] state".
      const backend = / (\S+) (\S+) (?:[\d.:a-f]+\(\d+\)|\[local\])/.exec(cmdline);
      if (scope.database && backend && backend[2] !== scope.database) return null;
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

export function snapshot(label: Labeler): CpuSnapshot {
  const perProcess = new Map<number, { label: string; ticks: number }>();
  if (process.platform !== 'linux') return { at: process.hrtime.bigint(), perProcess, idleTicks: 0, stealTicks: 0 };
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const name = label(pid, comm, cmdline);
      if (!name) continue;
      // Fields after the command: state is [0], utime [11], stime [12].
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      perProcess.set(pid, { label: name, ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // the process ended between listing and reading
    }
  }
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  // cpu user nice system idle iowait irq softirq steal ...
  return { at: process.hrtime.bigint(), perProcess, idleTicks: Number(cpu[4]) + Number(cpu[5]), stealTicks: Number(cpu[8] ?? 0) };
}

/** CPU milliseconds per call between two snapshots: each label's, and what no accounted process used. */
export interface CpuPerCall {
  /** Per label, largest first. */
  processes: CpuShare[];
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
  return { processes, idle: mean((cpu) => cpu.idle), steal: mean((cpu) => cpu.steal), other: mean((cpu) => cpu.other) };
}

export function perCall(before: CpuSnapshot, after: CpuSnapshot, calls: number): CpuPerCall | null {
  if (calls <= 0 || after.perProcess.size === 0) return null;
  const msPerTick = 1000 / TICKS_PER_SECOND;
  const byLabel = new Map<string, number>();
  for (const [pid, now] of after.perProcess) {
    const then = before.perProcess.get(pid)?.ticks ?? 0; // a process started during the phase
    byLabel.set(now.label, (byLabel.get(now.label) ?? 0) + (now.ticks - then));
  }
  const processes = [...byLabel].map(([label, ticks]) => ({ label, msPerCall: (ticks * msPerTick) / calls })).filter((s) => s.msPerCall > 0);
  processes.sort((a, b) => b.msPerCall - a.msPerCall);
  const capacity = (Number(after.at - before.at) / 1e6) * os.cpus().length / calls;
  const idle = ((after.idleTicks - before.idleTicks) * msPerTick) / calls;
  const steal = ((after.stealTicks - before.stealTicks) * msPerTick) / calls;
  const used = processes.reduce((sum, s) => sum + s.msPerCall, 0);
  return { processes, idle, steal, other: Math.max(0, capacity - used - idle - steal) };
}
