import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { subscriptionName } from '@relay/shared';
import { benchLabeler, combinePerCall, perCall, postgresProcesses, snapshot, watchEnding, type CpuSnapshot } from './cpu';

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
    const scoped = benchLabeler({}, { root: '/srv/relay', databases: ['relay_bench_money_1', 'relay_bench_money_1_reporting'] });
    expect(scoped(7, 'node', '/usr/bin/node /srv/relay/services/wallet/dist/main.js ')).toBe('wallet');
    expect(scoped(12, 'node', '/usr/bin/node /srv/other/services/wallet/dist/main.js ')).toBeNull();
    expect(scoped(13, 'postgres', 'postgres: 15/main: postgres relay_bench_money_1 127.0.0.1(5000) idle')).toBe('PostgreSQL');
    expect(scoped(14, 'postgres', 'postgres: 15/main: postgres relay_bench_money_2 127.0.0.1(5001) idle')).toBeNull();
    expect(scoped(18, 'postgres', 'postgres: 15/main: postgres relay_bench_money_1_reporting 127.0.0.1(5002) idle')).toBe('PostgreSQL');
    expect(scoped(15, 'postgres', 'postgres: 15/main: postgres relay_test_9 [local] idle')).toBeNull();
    expect(scoped(16, 'postgres', 'postgres: 15/main: walwriter')).toBe('PostgreSQL');
    expect(scoped(17, 'postgres', '/usr/lib/postgresql/15/bin/postgres -D /var/lib/postgresql/15/main -c config_file=/etc/postgresql/15/main/postgresql.conf')).toBe('PostgreSQL');
  });

  test('When the money database replicates, then its WAL sender and apply worker are PostgreSQL, and those of another run and another cluster are not', () => {
    // The title of a WAL sender names a user and a client, never a database: read as a backend,
    // its user "postgres" was taken for another database and the WAL sender was left out.
    const postgres = { postmaster: 100, subscriptions: [16390], walSenders: new Set([201]) };
    const label = benchLabeler({}, { databases: ['relay_bench_money_1', 'relay_bench_money_1_reporting'], postgres });
    expect(label(201, 'postgres', 'postgres: 15/main: walsender postgres 127.0.0.1(46120) START_REPLICATION', 100)).toBe('PostgreSQL');
    expect(label(201, 'postgres', 'postgres: walsender postgres [local] START_REPLICATION', 100)).toBe('PostgreSQL');
    expect(label(202, 'postgres', 'postgres: 15/main: walsender postgres 127.0.0.1(46122) START_REPLICATION', 100)).toBeNull(); // another run's
    // PostgreSQL 15's title, then 16's apply, table-sync and parallel apply workers.
    expect(label(203, 'postgres', 'postgres: logical replication worker for subscription 16390 ', 100)).toBe('PostgreSQL');
    expect(label(204, 'postgres', 'postgres: 16/main: logical replication apply worker for subscription 16390 ', 100)).toBe('PostgreSQL');
    expect(label(205, 'postgres', 'postgres: logical replication tablesync worker for subscription 16390 sync 16400 ', 100)).toBe('PostgreSQL');
    expect(label(206, 'postgres', 'postgres: logical replication parallel apply worker for subscription 16390 ', 100)).toBe('PostgreSQL');
    expect(label(207, 'postgres', 'postgres: logical replication worker for subscription 17000 ', 100)).toBeNull(); // another run's
    expect(label(208, 'postgres', 'postgres: logical replication launcher ', 100)).toBe('PostgreSQL');
    // Another cluster on the machine: neither its postmaster nor its children.
    expect(label(300, 'postgres', '/usr/lib/postgresql/15/bin/postgres -D /var/lib/postgresql/15/main', 1)).toBeNull();
    expect(label(301, 'postgres', 'postgres: 15/main: walwriter ', 300)).toBeNull();
    expect(label(100, 'postgres', '/usr/lib/postgresql/15/bin/postgres -D /tmp/relay-postgres-postgres-5439', 1)).toBe('PostgreSQL');
    expect(label(209, 'postgres', 'postgres: walwriter ', 100)).toBe('PostgreSQL');
  });

  test('When a snapshot holds replication processes, then their CPU counts in PostgreSQL and on their own lines, in one phase and over several', () => {
    const snap = (ticks: [number, string, number, string?][]): CpuSnapshot => ({
      at: 0n,
      perProcess: new Map(ticks.map(([pid, label, t, part]) => [pid, { label, ticks: t, part }])),
      idleTicks: 0,
      stealTicks: 0,
    });
    const tick = perCall(snap([[1, 'x', 0]]), snap([[1, 'x', 1]]), 1)!.processes[0].msPerCall;
    const before = snap([[1, 'PostgreSQL', 10], [2, 'PostgreSQL', 5, 'WAL sender'], [3, 'PostgreSQL', 5, 'logical replication apply worker']]);
    const after = snap([[1, 'PostgreSQL', 30], [2, 'PostgreSQL', 9, 'WAL sender'], [3, 'PostgreSQL', 15, 'logical replication apply worker']]);
    const cpu = perCall(before, after, 10)!;
    expect(cpu.processes).toEqual([{ label: 'PostgreSQL', msPerCall: expect.closeTo((34 * tick) / 10) }]);
    expect(cpu.parts).toEqual([
      { of: 'PostgreSQL', label: 'WAL sender', msPerCall: expect.closeTo((4 * tick) / 10) },
      { of: 'PostgreSQL', label: 'logical replication apply worker', msPerCall: expect.closeTo((10 * tick) / 10) },
    ]);
    // Weighted by calls, as the processes are.
    const other = perCall(before, snap([[1, 'PostgreSQL', 10], [2, 'PostgreSQL', 5, 'WAL sender'], [3, 'PostgreSQL', 5, 'logical replication apply worker']]), 30)!;
    const both = combinePerCall([{ cpu, calls: 10 }, { cpu: other, calls: 30 }])!;
    expect(both.parts?.find((p) => p.label === 'logical replication apply worker')?.msPerCall).toBeCloseTo((10 * tick) / 40);
  });
});

/**
 * Real processes: the test run's money database publishes to its reporting database (global set-up),
 * so its cluster runs a WAL sender and an apply worker for this run, which must be charged.
 */
const withReplication = process.platform === 'linux' && process.env.DATABASE_URL && process.env.REPORTING_DATABASE_URL ? describe : describe.skip;

withReplication('PostgreSQL\'s replication processes of a real run', () => {
  test('When the run\'s databases replicate, then its WAL sender and apply worker are found, labelled PostgreSQL and given their own lines', async () => {
    const moneyUrl = process.env.DATABASE_URL!;
    const reportingUrl = process.env.REPORTING_DATABASE_URL!;
    const name = subscriptionName(reportingUrl);
    const own = await postgresProcesses(moneyUrl, reportingUrl);
    const money = new pg.Client({ connectionString: moneyUrl });
    const reporting = new pg.Client({ connectionString: reportingUrl });
    await money.connect();
    await reporting.connect();
    try {
      // Both are up once the subscription streams: the slot's WAL sender, the subscription's apply worker.
      let walSender: number | undefined;
      let worker: number | undefined;
      for (let i = 0; i < 200 && !(walSender && worker); i++) {
        walSender = (await money.query<{ pid: number }>('SELECT active_pid AS pid FROM pg_replication_slots WHERE slot_name = $1', [name])).rows[0]?.pid ?? undefined;
        worker = (await reporting.query<{ pid: number }>('SELECT pid FROM pg_stat_subscription WHERE subname = $1 AND relid IS NULL', [name])).rows[0]?.pid ?? undefined;
        if (!(walSender && worker)) await new Promise((r) => setTimeout(r, 50));
      }
      expect(walSender).toBeDefined();
      expect(worker).toBeDefined();
      await own.refresh();
      expect([...own.processes.walSenders]).toEqual([walSender]);
      expect(own.processes.postmaster).toBeDefined();
      const databases = [new URL(moneyUrl).pathname.slice(1), new URL(reportingUrl).pathname.slice(1)];
      const ours = snapshot(benchLabeler({}, { databases, postgres: own.processes }));
      expect(ours.perProcess.get(walSender!)).toMatchObject({ label: 'PostgreSQL', part: 'WAL sender' });
      expect(ours.perProcess.get(worker!)).toMatchObject({ label: 'PostgreSQL', part: 'logical replication apply worker' });
      // Another run's scope (its own databases, subscription and WAL senders) leaves both out.
      const theirs = snapshot(benchLabeler({}, { databases: ['relay_bench_money_0'], postgres: { postmaster: own.processes.postmaster, subscriptions: [1], walSenders: new Set() } }));
      expect(theirs.perProcess.has(walSender!)).toBe(false);
      expect(theirs.perProcess.has(worker!)).toBe(false);
    } finally {
      await money.end();
      await reporting.end();
      await own.close();
    }
  });

  test('When a client\'s backend works and ends within a phase, as pgbench\'s do, then its CPU is still counted', async () => {
    const moneyUrl = process.env.DATABASE_URL!;
    const own = await postgresProcesses(moneyUrl, process.env.REPORTING_DATABASE_URL!);
    try {
      const label = benchLabeler({}, { databases: [new URL(moneyUrl).pathname.slice(1)], postgres: own.processes });
      const before = snapshot(label);
      const ending = watchEnding(label, own.processes.postmaster, 20);
      const client = new pg.Client({ connectionString: moneyUrl });
      await client.connect();
      const backend = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      const ms = (snap: CpuSnapshot) => perCall(before, snap, 1)?.processes.find((s) => s.label === 'PostgreSQL')?.msPerCall ?? 0;
      // Busy until it has used 300 ms of CPU (by the counters, not the clock: a loaded machine gives
      // it less of each second), then gone (the client disconnects, its backend exits).
      const deadline = Date.now() + 20_000;
      while (ms(snapshot(label)) < 300 && Date.now() < deadline) await client.query('SELECT count(*) FROM generate_series(1, 200000)');
      await client.end();
      for (let i = 0; i < 100 && existsSync(`/proc/${backend}`); i++) await new Promise((r) => setTimeout(r, 20));
      const after = snapshot(label);
      expect(after.perProcess.has(backend)).toBe(false);
      const settled = ending.settle(after);
      expect(settled.perProcess.get(backend)?.label).toBe('PostgreSQL');
      // Most of the backend's busy time is there; without the watch it would be lost.
      expect(ms(settled) - ms(after)).toBeGreaterThan(200);
    } finally {
      await own.close();
    }
  }, 30_000);
});
