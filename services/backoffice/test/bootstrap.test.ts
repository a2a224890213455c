import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { createKnex, dropDatabase, type Knex } from '@relay/shared';

/** `npm run accounts:bootstrap` (the built script), against a database of its own: it must be empty of admins. */
const run = promisify(execFile);
const script = path.resolve(__dirname, '../dist/bootstrap.js');
const url = `${process.env.DATABASE_URL}_bootstrap_${process.pid}`;
let db: Knex | null = null;

// DROP DATABASE waits for a checkpoint: many seconds while the database is busy writing.
afterAll(async () => {
  await db?.destroy();
  await dropDatabase(url);
}, 120_000);

const bootstrap = (args: string[], env: Record<string, string> = {}) =>
  run(process.execPath, [script, ...args], { env: { ...process.env, DATABASE_URL: url, ...env } }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );

describe('When the bootstrap command runs', () => {
  it('then it creates the first platform admin once (audited, password shown once), and refuses a second run and weak passwords', async () => {
    expect((await bootstrap([])).code).toBe(2);
    const weak = await bootstrap(['--email', 'weak@example.test', '--name', 'Weak'], { BOOTSTRAP_PASSWORD: 'password123' });
    expect([weak.code, weak.stderr]).toEqual([1, expect.stringContaining('WEAK_PASSWORD')]);

    const first = await bootstrap(['--email', 'first@example.test', '--name', 'First Admin']);
    expect(first.code).toBe(0);
    const password = /Password \(shown only now\): (\S+)/.exec(first.stdout)?.[1];
    expect(password).toBeDefined();

    db = createKnex(url, 1, 'bootstrap-test');
    const account = await db('operator_accounts').where({ email_normalized: 'first@example.test' }).first();
    expect(account).toMatchObject({ role: 'admin', scope_type: 'platform', status: 'ACTIVE', totp_secret_enc: null });
    expect(account.password_hash).toMatch(/^\$argon2id\$/);
    expect(account.password_hash).not.toContain(password);
    const audit = await db('audit_log').where({ target: `account:${account.account_id}` }).first();
    expect(audit).toMatchObject({ actor_type: 'system', action: 'account.create' });

    const second = await bootstrap(['--email', 'second@example.test', '--name', 'Second'], { BOOTSTRAP_PASSWORD: 'violet-harbour-47-lantern' });
    expect([second.code, second.stderr]).toEqual([1, expect.stringContaining('ACCOUNT_EXISTS')]);
    expect(await db('operator_accounts').where({ email_normalized: 'second@example.test' }).first()).toBeUndefined();
  });
});
