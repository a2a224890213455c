import { Writable } from 'node:stream';
import pino from 'pino';
import { createLogger, REDACTED_PATHS } from './logger';

/** Every line a logger writes: as text with its time left out (it differs between two loggers), and parsed. */
function capture(): { destination: pino.DestinationStream; raw: () => string[]; lines: () => Record<string, unknown>[] } {
  const text: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      text.push(String(chunk));
      done();
    },
  });
  const raw = () =>
    text
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.replace(/"time":"[^"]*",/, ''));
  const lines = () =>
    text
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const { time: _time, ...rest } = JSON.parse(l) as Record<string, unknown>;
        return rest;
      });
  return { destination, raw, lines };
}

/** pino as createLogger configures it (its mixin outside a request adds nothing), without the fast path for plain values. */
function plainPino(destination: pino.DestinationStream) {
  return pino(
    {
      level: 'info',
      base: { service: 'test' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, remove: true },
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => ({}),
    },
    destination,
  );
}

const SECRET = 's3cret-value';

describe('createLogger', () => {
  it('When a secret is logged at the top level or one or two objects deep, then the line does not hold it', () => {
    const { destination, lines } = capture();
    const logger = createLogger({ service: 'test', destination });
    logger.info({ walletToken: SECRET, token: SECRET, password: SECRET, route: '/api/balance/cash-out' }, 'top');
    logger.info({ casino: { walletSecret: SECRET, launchKey: SECRET, providerId: 'c-1' } }, 'one deep');
    logger.info({ req: { headers: { authorization: `Bearer ${SECRET}`, 'x-relay-identity': SECRET, accept: 'json' } } }, 'headers');
    logger.info({ outer: { inner: { walletToken: SECRET, token: SECRET, kept: 1 } } }, 'two deep');
    logger.info({ headers: { 'x-relay-signature': SECRET, authorization: SECRET } }, 'signed');
    const out = lines();
    expect(JSON.stringify(out)).not.toContain(SECRET);
    expect(out.map((l) => l.msg)).toEqual(['top', 'one deep', 'headers', 'two deep', 'signed']);
    expect(out[0].route).toBe('/api/balance/cash-out');
    expect(out[1].casino).toEqual({ providerId: 'c-1' });
    expect(out[2].req).toEqual({ headers: { accept: 'json' } });
    expect(out[3].outer).toEqual({ inner: { kept: 1 } });
  });

  it('When any mix of values is logged, then each line is exactly what pino with the same redaction writes', () => {
    const mine = capture();
    const theirs = capture();
    const logger = createLogger({ service: 'test', destination: mine.destination });
    const reference = plainPino(theirs.destination);
    const values: unknown[] = [
      'plain',
      'quote " backslash \\ newline \n tab \t',
      'unicode \u00e9\u4e2d\ud83d\ude00 and \u0001 control',
      '',
      0,
      -1.5,
      1e21,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      true,
      false,
      null,
      [1, 'two', { token: SECRET }],
      { walletToken: SECRET, nested: { token: SECRET, ok: 'yes' } },
      { a: { b: { walletSecret: SECRET, c: { launchKey: 'deeper than the paths reach' } } } },
    ];
    for (const [i, value] of values.entries()) {
      const fields = { field: value, status: 200, durationMs: i + 0.25, method: 'POST' };
      logger.info(fields, `line ${i}`);
      reference.info(fields, `line ${i}`);
    }
    logger.info('message only');
    reference.info('message only');
    // Byte for byte, the time aside.
    expect(mine.raw()).toEqual(theirs.raw());
    expect(mine.raw()).toHaveLength(values.length + 1);
  });

  it('When a child logger adds bindings, then its lines keep the same redaction', () => {
    const { destination, lines } = capture();
    const child = createLogger({ service: 'test', destination }).child({ component: 'casino' });
    child.warn({ body: { walletToken: SECRET, amount: 5 } }, 'declined');
    const [line] = lines();
    expect(line).toMatchObject({ component: 'casino', body: { amount: 5 }, msg: 'declined' });
    expect(JSON.stringify(line)).not.toContain(SECRET);
  });
});
