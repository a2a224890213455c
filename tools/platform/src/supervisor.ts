import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ROOT, PROCESSES } from './services';

/** Restart delays: doubled from the first, capped; a process that ran this long starts over. */
export const RESTART_BACKOFF = { firstMs: 250, maxMs: 30_000, stableAfterMs: 60_000 };

type Proc = (typeof PROCESSES)[number];

/**
 * Runs every service in its own process in the foreground. A process that dies on its own is
 * restarted after a backoff that doubles while it keeps dying (as Kubernetes restarts a pod), and
 * logged; the others keep serving. SIGINT/SIGTERM stops them in reverse start order (gateway
 * first), each with its own graceful shutdown.
 */
export class Supervisor {
  private readonly children = new Map<string, ChildProcess>();
  private readonly restarts = new Map<string, { count: number; timer?: NodeJS.Timeout }>();
  private stopping: Promise<number> | null = null;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly log: (msg: string, fields?: Record<string, unknown>) => void,
    private readonly backoff = RESTART_BACKOFF,
  ) {}

  start(): void {
    for (const proc of PROCESSES) {
      if (!existsSync(path.join(ROOT, proc.script))) {
        this.log(`skipping ${proc.name}: ${proc.script} is not built`);
        continue;
      }
      this.spawn(proc);
    }
  }

  /** The pid of each running process, by name. */
  pids(): Record<string, number | undefined> {
    return Object.fromEntries([...this.children].map(([name, child]) => [name, child.pid]));
  }

  stop(): Promise<number> {
    if (this.stopping) return this.stopping;
    this.stopping = (async () => {
      for (const r of this.restarts.values()) clearTimeout(r.timer);
      for (const proc of [...PROCESSES].reverse()) {
        const child = this.children.get(proc.name);
        if (!child) continue;
        await new Promise<void>((resolve) => {
          const kill = setTimeout(() => child.kill('SIGKILL'), 20000);
          child.once('exit', () => {
            clearTimeout(kill);
            resolve();
          });
          child.kill('SIGTERM');
        });
      }
      return 0;
    })();
    return this.stopping;
  }

  private spawn(proc: Proc): void {
    // RELAY_NODE_ARGS: extra Node flags for every service (e.g. --max-old-space-size, --cpu-prof),
    // after the process's own, so they can override them.
    const nodeArgs = [...(proc.nodeArgs ?? []), ...(this.env.RELAY_NODE_ARGS ?? '').split(' ').filter(Boolean)];
    const child = spawn(process.execPath, [...nodeArgs, path.join(ROOT, proc.script)], { env: this.env, stdio: ['ignore', 'inherit', 'inherit'] });
    const started = Date.now();
    this.children.set(proc.name, child);
    // A spawn that fails (EAGAIN, ENOMEM) emits 'error', and maybe no 'exit': restart it the same way.
    child.on('error', (err) => {
      this.log(`${proc.name} could not be started: ${err.message}`, { process: proc.name });
      if (child.pid === undefined) child.emit('exit', null, null);
    });
    child.on('exit', (code, signal) => {
      if (this.children.get(proc.name) === child) this.children.delete(proc.name);
      if (this.stopping) return;
      const state = this.restarts.get(proc.name) ?? { count: 0 };
      if (Date.now() - started >= this.backoff.stableAfterMs) state.count = 0;
      const delayMs = Math.min(this.backoff.maxMs, this.backoff.firstMs * 2 ** state.count);
      state.count += 1;
      this.log(`${proc.name} exited unexpectedly; restarting it in ${delayMs} ms`, { process: proc.name, code, signal, restart: state.count, delayMs });
      state.timer = setTimeout(() => {
        if (!this.stopping) this.spawn(proc);
      }, delayMs);
      this.restarts.set(proc.name, state);
    });
  }
}
