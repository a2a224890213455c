import { createKnex, withoutJit } from './db';

/** Every pool's connections run without JIT compilation, keeping the options their URL carries. */
describe('createKnex', () => {
  const base = process.env.TEST_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432';

  it('When a pool connects, then JIT is off and the URL\'s own options still apply', async () => {
    const db = createKnex(`${base}/postgres?options=${encodeURIComponent('-c default_transaction_read_only=on')}`, 1, 'relay-test-jit');
    try {
      const { rows } = await db.raw<{ rows: { jit: string; readOnly: string }[] }>(
        `SELECT current_setting('jit') AS jit, current_setting('default_transaction_read_only') AS "readOnly"`,
      );
      expect(rows[0]).toEqual({ jit: 'off', readOnly: 'on' });
    } finally {
      await db.destroy();
    }
  });

  it('When the URL sets jit itself, then that setting is kept', () => {
    const url = `${base}/postgres?options=${encodeURIComponent('-c jit=on')}`;
    expect(withoutJit(url)).toBe(url);
  });
});
