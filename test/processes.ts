import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';

/** Real service processes for crash tests: built code (`npm run build`), killed for real. */
export const ROOT = path.resolve(__dirname, '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

export interface ServiceProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * Starts `services/<name>/dist/<entry>.js` and waits until its /healthz answers (when it has a port):
 * up to 30 s, as a process start on a loaded machine takes seconds, and fails the test if it never does.
 */
export async function startServiceProcess(script: string, env: Record<string, string>, healthUrl?: string): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [path.join(ROOT, script)], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  if (healthUrl) {
    for (const deadline = Date.now() + 30_000; ; ) {
      if (child.exitCode !== null) throw new Error(`${script} exited: ${out}`);
      try {
        if ((await fetch(healthUrl)).ok) break;
      } catch {
        // not up yet
      }
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`${script} did not answer ${healthUrl} within 30 s: ${out}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { child, output: () => out, exited };
}
