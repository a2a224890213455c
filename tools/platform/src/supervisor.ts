import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ROOT, PROCESSES } from './services';

/**
 * Runs every service in its own process in the foreground. SIGINT/SIGTERM stops them in reverse
 * start order (gateway first), each with its own graceful shutdown; if any process dies on its
 * own, the others are stopped too and we exit non-zero, so a supervisor above us notices.
 */
export class Supervisor {
  private readonly children = new Map<string, ChildProcess>();
  private stopping: Promise<number> | null = null;
  private failed = false;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly log: (msg: string) => void,
    private readonly onStopped: (code: number) => void,
  ) {}

  start(): void {
    for (const proc of PROCESSES) {
      const script = path.join(ROOT, proc.script);
      if (!existsSync(script)) {
        this.log(`skipping ${proc.name}: ${proc.script} is not built`);
        continue;
      }
      // RELAY_NODE_ARGS: extra Node flags for every service (e.g. --max-old-space-size, --cpu-prof),
      // after the process's own, so they can override them.
      const nodeArgs = [...(proc.nodeArgs ?? []), ...(this.env.RELAY_NODE_ARGS ?? '').split(' ').filter(Boolean)];
      const child = spawn(process.execPath, [...nodeArgs, script], { env: this.env, stdio: ['ignore', 'inherit', 'inherit'] });
      this.children.set(proc.name, child);
      child.on('exit', (code, signal) => {
        this.children.delete(proc.name);
        if (!this.stopping) {
          this.failed = true;
          this.log(`${proc.name} exited unexpectedly (code ${code}, signal ${signal}); stopping the platform`);
          void this.stop().then(this.onStopped);
        }
      });
    }
  }

  stop(): Promise<number> {
    if (this.stopping) return this.stopping;
    this.stopping = (async () => {
      const order = [...PROCESSES].reverse();
      for (const proc of order) {
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
      return this.failed ? 1 : 0;
    })();
    return this.stopping;
  }
}
