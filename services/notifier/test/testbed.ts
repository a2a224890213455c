import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { closeRuntime, createRuntime, loadConfig, type Runtime } from '@relay/shared';
import { startCasinoSandbox, type CasinoSandbox } from '@relay/casino-sandbox';
import { http, startPlatform, uniqueId, type TestPlatform } from '../../../test/platform';
import { adminPut, provisionWorld, type HttpResult, type World } from '../../../test/provision';
import { startNotifierWorker, type NotifierWorker, type NotifierWorkerOptions } from '../src';

export const ROOT = path.resolve(__dirname, '../../..');
export const SANDBOX_SECRET = 'notifier-test-sandbox-wallet-secret';

/**
 * One platform behind a real gateway, a sandbox casino, and notifier workers started on demand.
 * Each test file gets a queue of its own (its own REDIS_KEY_PREFIX), so a worker of another file
 * never takes its jobs; the keys are deleted at stop.
 */
export interface Testbed {
  platform: TestPlatform;
  sandbox: CasinoSandbox;
  world: World;
  env: Record<string, string>;
  /** A further casino at the sandbox (same secret), of the given status. */
  addCasino(status?: 'ACTIVE' | 'INACTIVE'): Promise<string>;
  /** An in-process worker with its own runtime, as the worker process would run it. */
  startWorker(options?: NotifierWorkerOptions): Promise<NotifierWorker>;
  /** `node services/notifier/dist/worker.js` with this testbed's environment; resolves once it is taking jobs. */
  spawnWorker(extraEnv?: Record<string, string>): Promise<ChildProcess>;
  roundEnded(body: unknown, headers?: Record<string, string>): Promise<HttpResult>;
  stop(): Promise<void>;
}

export async function startTestbed(name: string, env: Record<string, string> = {}): Promise<Testbed> {
  const fullEnv = { ...env, REDIS_KEY_PREFIX: `${process.env.REDIS_KEY_PREFIX ?? 'test'}_${name}` };
  const sandbox = await startCasinoSandbox({ walletSecret: SANDBOX_SECRET });
  const platform = await startPlatform({ env: fullEnv, notifierWorker: false });
  const world = await provisionWorld(platform, { walletUrl: sandbox.walletUrl });
  sandbox.setSecret(world.providerId, world.walletSecret);
  const workers: { worker: NotifierWorker; rt: Runtime }[] = [];
  const children: ChildProcess[] = [];

  return {
    platform,
    sandbox,
    world,
    env: fullEnv,
    addCasino: async (status = 'ACTIVE') => {
      const providerId = uniqueId('cas');
      const res = await adminPut(platform, `casinos/${providerId}`, {
        name: `Casino ${providerId}`,
        walletUrl: sandbox.walletUrlFor(providerId),
        walletSecret: SANDBOX_SECRET,
        status,
      });
      if (res.status !== 200) throw new Error(`create casino answered ${res.status}: ${res.text}`);
      return providerId;
    },
    startWorker: async (options) => {
      const rt = await createRuntime('notifier', loadConfig({ ...process.env, ...fullEnv }));
      const worker = await startNotifierWorker(rt, options);
      workers.push({ worker, rt });
      return worker;
    },
    spawnWorker: async (extraEnv = {}) => {
      const child = spawn(process.execPath, [path.join(ROOT, 'services/notifier/dist/worker.js')], {
        env: { ...process.env, ...fullEnv, LOG_LEVEL: 'info', ...extraEnv },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      await new Promise<void>((resolve, reject) => {
        let output = '';
        const timer = setTimeout(() => reject(new Error(`worker did not start: ${output}`)), 15000);
        const onData = (chunk: Buffer) => {
          output += chunk.toString();
          if (output.includes('notifier worker started')) {
            clearTimeout(timer);
            resolve();
          }
        };
        child.stdout?.on('data', onData);
        child.stderr?.on('data', onData);
        child.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`worker exited with ${code}: ${output}`));
        });
      });
      return child;
    },
    roundEnded: (body, headers) => http('POST', `${platform.baseUrl}/api/round-ended`, { token: world.providerToken, body, headers }),
    stop: async () => {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      for (const { worker, rt } of workers) {
        await worker.close();
        await closeRuntime(rt);
      }
      await deleteKeys(platform, fullEnv.REDIS_KEY_PREFIX);
      await platform.stop();
      await sandbox.close();
    },
  };
}

async function deleteKeys(platform: TestPlatform, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await platform.redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await platform.redis.del(...keys);
  } while (cursor !== '0');
}

/**
 * Polls until `check` holds (tests of asynchronous effects), failing after `ms`: by default 10 s, room
 * for a queue job on a loaded machine (it usually takes milliseconds).
 */
export async function eventually(check: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
