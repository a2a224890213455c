import { createKnex, MONEY_PATH_POOL, sessionSettings, withSettings } from './db';

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
    expect(withSettings(url, sessionSettings())).toBe(url);
  });
});

/** The money path's pool (the wallet's): every connection kept, its session settings applied. */
describe('createKnex with a pool policy', () => {
  const base = process.env.TEST_DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432';

  it('When the money path\'s settings are given, then every connection runs them beside jit=off and the URL\'s options', async () => {
    const url = `${base}/postgres?options=${encodeURIComponent('-c default_transaction_read_only=on')}`;
    const db = createKnex(url, 3, 'relay-test-policy', undefined, MONEY_PATH_POOL);
    try {
      // Three connections at once, so that more than the first one is checked.
      const rows = await Promise.all(
        [1, 2, 3].map(() =>
          db.transaction(async (trx) => {
            const r = await trx.raw<{ rows: { plans: string; jit: string; readOnly: string }[] }>(
              `SELECT current_setting('plan_cache_mode') AS plans, current_setting('jit') AS jit, current_setting('default_transaction_read_only') AS "readOnly", pg_sleep(0.05)`,
            );
            return r.rows[0];
          }),
        ),
      );
      for (const row of rows) expect(row).toMatchObject({ plans: 'force_generic_plan', jit: 'off', readOnly: 'on' });
    } finally {
      await db.destroy();
    }
  });

  it('When a pool is warm, then it never closes idle connections below its size; by default it closes them all', () => {
    const warm = createKnex(`${base}/postgres`, 7, 'relay-test-warm', undefined, { warm: true });
    const cold = createKnex(`${base}/postgres`, 7, 'relay-test-cold');
    const pool = (db: typeof warm) => (db.client as { config: { pool: Record<string, number> } }).config.pool;
    try {
      expect(pool(warm)).toMatchObject({ min: 7, max: 7, maxConnectionLifetimeMillis: 1_800_000 });
      expect(pool(cold)).toMatchObject({ min: 0, max: 7 });
      expect(pool(cold)).not.toHaveProperty('maxConnectionLifetimeMillis');
    } finally {
      void warm.destroy();
      void cold.destroy();
    }
  });

  it('When a setting is already in the URL, then the URL\'s value is kept and the others are added', () => {
    for (const own of ['-c plan_cache_mode=auto', '-cplan_cache_mode=auto', '--plan_cache_mode=auto', '-c jit=off -c plan_cache_mode=auto']) {
      const url = `${base}/postgres?options=${encodeURIComponent(own)}`;
      expect(withSettings(url, { plan_cache_mode: 'force_generic_plan' })).toBe(url);
    }
    // A name inside another setting's value or name is not that setting.
    const other = new URL(withSettings(`${base}/postgres?options=${encodeURIComponent('-c my_plan_cache_mode=1')}`, { plan_cache_mode: 'force_generic_plan' }));
    expect(other.searchParams.get('options')).toBe('-c my_plan_cache_mode=1 -c plan_cache_mode=force_generic_plan');
    const added = new URL(withSettings(`${base}/postgres`, { plan_cache_mode: 'force_generic_plan', work_mem: '8MB' }));
    expect(added.searchParams.get('options')).toBe('-c plan_cache_mode=force_generic_plan -c work_mem=8MB');
  });
});
