import { UnrecoverableError, type Job } from 'bullmq';
import { AppError, createLogger, ServiceMetrics, type Casino, type CasinoAnswer, type CasinoResult } from '@relay/shared';
import { readFailureReason } from '../queue/failure-reason';
import type { RoundEndedJob, RoundEndedReceipt } from '../queue/round-ended-queue';
import { roundEndedProcessor } from './deliver-round-ended';

const casino: Casino = {
  providerId: 'cas-1',
  name: 'Casino',
  walletUrl: 'http://casino.test/wallet',
  walletSecret: 'wallet-secret-value',
  launchKey: 'k',
  status: 'ACTIVE',
  refundOnCreditFail: false,
  creditOnDisconnect: false,
  freeRoundsMode: 'passthrough',
  createdAt: '',
};

function job(ageMs = 0): Job<RoundEndedJob, RoundEndedReceipt, string> {
  const now = Date.now();
  return { id: 'j1', timestamp: now - ageMs, processedOn: now, attemptsStarted: 1, data: { providerId: 'cas-1', groupId: 'grp-1', roundId: 'r-1', trace: {} } } as unknown as Job<
    RoundEndedJob,
    RoundEndedReceipt,
    string
  >;
}

function processor(found: Casino | null, answer: CasinoResult<CasinoAnswer>) {
  const calls: { wallet: unknown; operation: string; body: object }[] = [];
  const process = roundEndedProcessor({
    registry: { casino: async () => found },
    casinos: {
      call: async (wallet, operation, body) => {
        calls.push({ wallet, operation, body });
        return answer;
      },
    },
    logger: createLogger({ service: 'test', level: 'silent' }),
    metrics: new ServiceMetrics('test'),
    maxJobAgeMs: 60_000,
  });
  return { process, calls };
}

async function failureOf(promise: Promise<unknown>) {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UnrecoverableError);
  return readFailureReason((err as Error).message);
}

const ok: CasinoResult<CasinoAnswer> = { ok: true, status: 204, rawBody: '' };

describe('roundEndedProcessor', () => {
  it('When the casino answers 2xx, then the job completes after one signed call with exactly {providerId, groupId, roundId}', async () => {
    const { process, calls } = processor(casino, ok);
    await expect(process(job())).resolves.toEqual({ casinoStatus: 204 });
    expect(calls).toEqual([{ wallet: casino, operation: 'round-ended', body: { providerId: 'cas-1', groupId: 'grp-1', roundId: 'r-1' } }]);
  });

  it('When the casino fails, then the job fails, not to be retried, with the relay code in front of the reason', async () => {
    const { process } = processor(casino, { ok: false, error: new AppError('INTEGRATION_TIMED_OUT', 'Casino did not answer') });
    expect(await failureOf(process(job()))).toEqual({ code: 'INTEGRATION_TIMED_OUT', message: 'Casino did not answer' });
  });

  it('When the casino was removed or deactivated since the request checked it, then it is not called', async () => {
    const removed = processor(null, ok);
    expect((await failureOf(removed.process(job()))).code).toBe('PROVIDER_NOT_FOUND');
    const inactive = processor({ ...casino, status: 'INACTIVE' }, ok);
    expect((await failureOf(inactive.process(job()))).code).toBe('PROVIDER_NOT_ACTIVE');
    expect([...removed.calls, ...inactive.calls]).toEqual([]);
  });

  it('When the job waited longer than the maximum age, then it is dropped without calling the casino', async () => {
    const { process, calls } = processor(casino, ok);
    expect((await failureOf(process(job(120_000)))).code).toBe('INTEGRATION_TIMED_OUT');
    expect(calls).toEqual([]);
  });

  it('When loading the casino throws, then the job fails and reads as an internal error', async () => {
    const failing = roundEndedProcessor({
      registry: {
        casino: async () => {
          throw new Error('connection refused');
        },
      },
      casinos: { call: async () => ok },
      logger: createLogger({ service: 'test', level: 'silent' }),
      metrics: new ServiceMetrics('test'),
      maxJobAgeMs: 60_000,
    });
    const err = (await failing(job()).catch((e: unknown) => e)) as Error;
    expect(readFailureReason(err.message).code).toBe('INTERNAL_ERROR');
  });
});
