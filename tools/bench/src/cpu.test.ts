import { spawn } from 'node:child_process';
import { benchLabeler, perCall, snapshot, type CpuSnapshot } from './cpu';

/** The benchmark's CPU accounting, read off real processes (Linux /proc). */
const linux = process.platform === 'linux' ? describe : describe.skip;

linux('CPU per call from /proc', () => {
  test('When a process burns CPU between two snapshots, then its label is charged for it and a sleeping one is not', async () => {
    const busy = spawn(process.execPath, ['-e', 'console.log("ready"); const end = Date.now() + 5000; while (Date.now() < end);']);
    const sleeper = spawn(process.execPath, ['-e', 'console.log("ready"); setTimeout(() => {}, 5000)']);
    // Past node's own start-up (its CPU is not the sleeper's sleep): each says so once it runs its code.
    const ready = (child: typeof busy) => new Promise((resolve) => child.stdout!.once('data', resolve));
    try {
      await Promise.all([ready(busy), ready(sleeper)]);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const label = benchLabeler({ [busy.pid!]: 'busy', [sleeper.pid!]: 'sleeper' });
      const started = process.hrtime.bigint();
      const before = snapshot(label);
      await new Promise((resolve) => setTimeout(resolve, 600));
      const after = snapshot(label);
      const shares = perCall(before, after, 1)!.processes;
      const ms = (name: string) => shares.find((s) => s.label === name)?.msPerCall ?? 0;
      // The window the two readings fall in: on a loaded machine the timer may fire well after 600 ms.
      const windowMs = Number(after.at - started) / 1e6;
      // Spinning through the window, on a machine that may be busy with other tests: at least a good
      // part of 600 ms, and never more than one core for the whole window (plus a clock tick).
      expect(ms('busy')).toBeGreaterThan(100);
      expect(ms('busy')).toBeLessThanOrEqual(windowMs + 20);
      expect(ms('sleeper')).toBeLessThan(30);
    } finally {
      busy.kill();
      sleeper.kill();
    }
  });

  test('When two snapshots are compared, then each label gets its ticks per call, largest first, beside idle and steal', () => {
    const snap = (ms: number, ticks: Record<number, [string, number]>, idle: number, steal: number): CpuSnapshot => ({
      at: BigInt(ms) * 1_000_000n,
      perProcess: new Map(Object.entries(ticks).map(([pid, [label, t]]) => [Number(pid), { label, ticks: t }])),
      idleTicks: idle,
      stealTicks: steal,
    });
    const before = snap(0, { 1: ['wallet', 100], 2: ['PostgreSQL', 50], 3: ['PostgreSQL', 10] }, 1000, 5);
    // pid 4 started during the phase: all its ticks count.
    const after = snap(1000, { 1: ['wallet', 160], 2: ['PostgreSQL', 80], 3: ['PostgreSQL', 20], 4: ['PostgreSQL', 10] }, 1040, 5);
    const cpu = perCall(before, after, 100)!;
    const tick = perCall(snap(0, { 1: ['x', 0] }, 0, 0), snap(0, { 1: ['x', 1] }, 0, 0), 1)!.processes[0].msPerCall; // ms per tick
    expect(cpu.processes.map((s) => s.label)).toEqual(['wallet', 'PostgreSQL']);
    expect(cpu.processes[0].msPerCall).toBeCloseTo((60 * tick) / 100);
    expect(cpu.processes[1].msPerCall).toBeCloseTo((50 * tick) / 100);
    expect(cpu.idle).toBeCloseTo((40 * tick) / 100);
    expect(cpu.steal).toBe(0);
    expect(perCall(before, after, 0)).toBeNull();
  });

  test('When the platform runs, then its processes are labelled by service and the databases by name', () => {
    const label = benchLabeler({ 42: 'load generator' });
    expect(label(42, 'node', 'node tools/bench/dist/money-bench.js')).toBe('load generator');
    expect(label(7, 'node', '/usr/bin/node --max-semi-space-size=64 /srv/relay/services/wallet/dist/main.js ')).toBe('wallet');
    expect(label(8, 'node', '/usr/bin/node /srv/relay/services/notifier/dist/worker.js ')).toBe('notifier worker');
    expect(label(9, 'postgres', 'postgres: 15/main: postgres relay_bench 127.0.0.1(5000) idle')).toBe('PostgreSQL');
    expect(label(10, 'redis-server', 'redis-server 127.0.0.1:6379')).toBe('Redis');
    expect(label(11, 'bash', 'bash')).toBeNull();
    // Scoped to this checkout and its database: another run's platform and backends are not charged.
    const scoped = benchLabeler({}, { root: '/srv/relay', database: 'relay_bench_money_1' });
    expect(scoped(7, 'node', '/usr/bin/node /srv/relay/services/wallet/dist/main.js ')).toBe('wallet');
    expect(scoped(12, 'node', '/usr/bin/node /srv/other/services/wallet/dist/main.js ')).toBeNull();
    expect(scoped(13, 'postgres', 'postgres: 15/main: postgres relay_bench_money_1 127.0.0.1(5000) idle')).toBe('PostgreSQL');
    expect(scoped(14, 'postgres', 'postgres: 15/main: postgres relay_bench_money_2 127.0.0.1(5001) idle')).toBeNull();
    expect(scoped(15, 'postgres', 'postgres: 15/main: postgres relay_test_9 [local] idle')).toBeNull();
    expect(scoped(16, 'postgres', 'postgres: 15/main: walwriter')).toBe('PostgreSQL');
    expect(scoped(17, 'postgres', '/usr/lib/postgresql/15/bin/postgres -D /var/lib/postgresql/15/main -c config_file=/etc/postgresql/15/main/postgresql.conf')).toBe('PostgreSQL');
  });
});
