import { execFileSync, type ChildProcess } from 'node:child_process';
import { uniqueId } from '../../../test/platform';
import { eventually, ROOT, startTestbed, type Testbed } from './testbed';

/**
 * The worker process dies (SIGKILL) while a delivery is in flight. The request must never answer
 * ok for a delivery nobody completed: it answers 408 at its bound (CASINO_TIMEOUT_MS + 5 s), or ok
 * once another worker has re-run the job and the casino really answered (round-ended is
 * idempotent at the casino, so the second notification is harmless).
 */
describe('round-ended when the notifier worker dies mid-delivery', () => {
  let tb: Testbed;
  // A casino per test: a job left behind by one test (and re-run later) never meets another's fault.
  let casino: string;
  // Short locks so a dead worker's job is found within the request's bound.
  const fastStall = { NOTIFIER_LOCK_DURATION_MS: '1000', NOTIFIER_STALLED_INTERVAL_MS: '500' };
  const calls = (roundId: string) => tb.sandbox.countCalls({ operation: 'round-ended', providerId: casino, roundId });

  beforeAll(async () => {
    execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-b', 'services/notifier'], { cwd: ROOT, stdio: 'inherit' });
    tb = await startTestbed('ntf_kill', { CASINO_TIMEOUT_MS: '2000' });
  }, 120000);

  beforeEach(async () => {
    casino = await tb.addCasino();
  });

  afterAll(async () => {
    await tb?.stop();
  });

  afterEach(() => tb.sandbox.clearFaults());

  /** Sends round-ended, waits until the casino holds the (delayed) call, then kills the worker. */
  async function killMidDelivery(child: ChildProcess, roundId: string) {
    tb.sandbox.setFault({ providerId: casino, operation: 'round-ended' }, { kind: 'delay', ms: 1500 }, 1);
    const started = Date.now();
    const answer = tb.roundEnded({ roundId, providerIds: [casino] }).then((res) => ({ res, ms: Date.now() - started }));
    await eventually(() => calls(roundId) === 1);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    return answer;
  }

  it('When the worker is killed and no other worker runs, then the request answers 408 INTEGRATION_TIMED_OUT at its bound, never ok', async () => {
    const child = await tb.spawnWorker(fastStall);
    const roundId = uniqueId('r');
    const { res, ms } = await killMidDelivery(child, roundId);
    expect(res.status).toBe(408);
    expect(res.body.error).toBe('INTEGRATION_TIMED_OUT');
    expect(ms).toBeGreaterThanOrEqual(2000 + 5000 - 100);
    expect(calls(roundId)).toBe(1);
  }, 30000);

  it('When the worker is killed and another worker takes over, then the request answers ok only after the re-run delivery completed', async () => {
    const child = await tb.spawnWorker(fastStall);
    const roundId = uniqueId('r');
    const answer = killMidDelivery(child, roundId);
    // The second worker starts once the child holds the delivery: started at once, it may take the job
    // first on a loaded machine (the child is a process still getting going), and nothing is killed mid-delivery.
    await eventually(() => calls(roundId) === 1);
    const takeover = await tb.startWorker({ lockDurationMs: 1000, stalledIntervalMs: 500 });
    const { res } = await answer;
    await takeover.close(); // the next test needs the child to be the only worker
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
    // The killed delivery and the one the new worker completed.
    expect(calls(roundId)).toBe(2);
    expect(tb.sandbox.calls({ operation: 'round-ended', providerId: casino, roundId })[1]).toMatchObject({ status: 200 });
  }, 30000);

  it('When the worker is stopped (SIGTERM) mid-delivery, then it finishes the delivery first, the request answers ok and the process exits 0', async () => {
    const child = await tb.spawnWorker();
    const roundId = uniqueId('r');
    tb.sandbox.setFault({ providerId: casino, operation: 'round-ended' }, { kind: 'delay', ms: 1000 }, 1);
    const answer = tb.roundEnded({ roundId, providerIds: [casino] });
    await eventually(() => calls(roundId) === 1);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    const res = await answer;
    expect(res.status).toBe(200);
    expect(await exited).toBe(0);
    expect(calls(roundId)).toBe(1);
  }, 30000);
});
