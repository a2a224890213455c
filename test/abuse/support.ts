import net from 'node:net';

/**
 * Bounded load helpers for the abuse suites: loopback only, every loop limited in count, every
 * socket given a deadline and destroyed at the end.
 */

export interface Answer {
  status: number;
  retryAfter: string | null;
  ms: number;
}

/** Sends `count` requests with at most `concurrency` in flight; a dropped socket is status 0. */
export async function burst(count: number, concurrency: number, send: (i: number) => Promise<Response>): Promise<Answer[]> {
  const answers: Answer[] = [];
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      const started = Date.now();
      try {
        const res = await send(i);
        await res.arrayBuffer();
        answers.push({ status: res.status, retryAfter: res.headers.get('retry-after'), ms: Date.now() - started });
      } catch {
        answers.push({ status: 0, retryAfter: null, ms: Date.now() - started });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
  return answers;
}

export function countBy<T>(items: T[], key: (item: T) => string | number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) out[String(key(item))] = (out[String(key(item))] ?? 0) + 1;
  return out;
}

/**
 * A client that declares a body of `declared` bytes and sends one byte every `everyMs`, for at
 * most `forMs`; resolves with the first line of whatever the server answered ('' if nothing).
 */
export function slowBody(baseUrl: string, path: string, token: string, opts: { declared: number; everyMs: number; forMs: number }): Promise<string> {
  const url = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname);
    let answer = '';
    let sent = 0;
    const drip = setInterval(() => {
      if (sent < opts.declared && socket.writable) {
        socket.write('{');
        sent++;
      }
    }, opts.everyMs);
    const finish = () => {
      clearInterval(drip);
      clearTimeout(deadline);
      socket.destroy();
      resolve(answer.split('\r\n')[0] ?? '');
    };
    const deadline = setTimeout(finish, opts.forMs);
    socket.on('connect', () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${opts.declared}\r\n\r\n`,
      );
    });
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
    });
    socket.on('close', finish);
    socket.on('error', finish);
  });
}
