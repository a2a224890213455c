import type { CasinoOperation } from '@relay/shared';
import { is2xx, printable } from '../kit';
import { WalletLine, type Reply } from '../wallet';
import { fail, pass, skip, type Check } from './check';

/** Not required to go live, but each one costs players time or the relay connections. */
const KEEP_ALIVE_CALLS = 5;

export const advisoryChecks: Check[] = [
  {
    id: 'keep-alive',
    required: false,
    sends: `${KEEP_ALIVE_CALLS} balance reads in a row over one connection pool`,
    why: 'A wallet that closes connections adds a TCP and TLS handshake to every bet.',
    async run(kit) {
      const line = new WalletLine(kit.config, { maxConnections: 1 });
      try {
        const replies: Reply[] = [];
        for (let i = 0; i < KEEP_ALIVE_CALLS; i++) replies.push(await line.send('balance', kit.balanceBody('funded')));
        const received = `${replies.filter(is2xx).length} of ${KEEP_ALIVE_CALLS} answered 2xx over ${plural(line.connections, 'connection')}`;
        if (line.connections <= 1) return pass('one connection served every call', received);
        return fail(`${line.connections} connections for ${KEEP_ALIVE_CALLS} calls: the wallet closes connections`, received);
      } finally {
        await line.close();
      }
    },
  },
  {
    id: 'content-type',
    required: false,
    sends: '(every answer of this run)',
    why: 'JSON labelled as JSON is what proxies, tooling and logs expect.',
    async run(kit) {
      const answered = kit.wallet.samples.filter(is2xx);
      const wrong = answered.filter((r) => !/^application\/([\w.+-]+\+)?json\b/i.test(r.contentType ?? ''));
      const seen = `seen: ${printable([...new Set(answered.map((r) => r.contentType ?? '(none)'))].join(', '))}`;
      if (answered.length === 0) return skip('no 2xx answer to look at');
      if (wrong.length > 0) return fail(`${wrong.length} of ${answered.length} 2xx answers are not labelled application/json`, seen);
      return pass(`all ${answered.length} 2xx answers are labelled JSON`, seen);
    },
  },
  ...(['balance', 'debit', 'credit', 'round-ended'] as const).map(latencyCheck),
];

function latencyCheck(operation: CasinoOperation): Check {
  return {
    id: `latency-${operation}`,
    required: false,
    sends: `(every answered ${operation} of this run)`,
    why: 'The relay gives up at its time-out (10 s by default); players feel more than 300 ms on every bet.',
    async run(kit) {
      const ms = kit.wallet.samples.filter((r) => r.operation === operation).map((r) => r.ms);
      if (ms.length === 0) return skip(`no ${operation} was answered`);
      const [p50, p95, p99, max] = [percentile(ms, 50), percentile(ms, 95), percentile(ms, 99), Math.max(...ms)].map((v) => Math.round(v));
      const received = `p50 ${p50} ms, p95 ${p95} ms, p99 ${p99} ms, max ${max} ms over ${plural(ms.length, 'call')}`;
      if (max >= kit.config.timeoutMs) return fail(`a call took ${max} ms, beyond the relay's ${kit.config.timeoutMs} ms time-out`, received);
      const target = kit.config.latencyTargetMs;
      if (p95 > target) return fail(`p95 ${p95} ms is above the ${target} ms target`, received);
      return pass(`p95 within the ${target} ms target`, received);
    },
  };
}

/** Nearest-rank percentile. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;
