import { generateKeyPairSync } from 'node:crypto';
import { parse as parseCsv } from 'csv-parse/sync';
import { verifyAuditChain } from '@relay/shared';
import { http, startPlatform, uniqueGameId, uniqueId, type TestPlatform } from '../../../test/platform';
import { asOperator, bo, createOperator, signedInOperator } from '../../../test/backoffice';

/**
 * The audit trail: every admin-API write (by the ADMIN_TOKEN or a signed-in platform admin) and
 * every back-office write leaves one entry with who, from where, which route and request, and the
 * record before and after with secrets redacted; the hash chain verifies, and an edited or deleted
 * row makes it fail.
 */
let p: TestPlatform;
beforeAll(async () => {
  p = await startPlatform({ services: ['admin', 'backoffice'] });
}, 30000);
afterAll(async () => {
  await p?.stop();
});

const auditOf = async (requestId: string) => p.db.primary('audit_log').where({ request_id: requestId }).select('*');
const publicKeyPem = () => generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();

describe('When the ADMIN_TOKEN makes every kind of admin-API write', () => {
  it('then each leaves exactly one entry with route, request id, client address and before/after, and no secret', async () => {
    const providerId = uniqueId('cas');
    const groupId = uniqueId('grp');
    const gameId = uniqueGameId();
    const secrets: string[] = [];
    const writes: { method: string; path: string; body?: unknown; route: string; before: 'null' | 'record'; after: 'null' | 'record' }[] = [
      { method: 'PUT', path: `casinos/${providerId}`, body: { name: 'Audited', walletUrl: 'http://127.0.0.1:9/wallet' }, route: '/admin/v1/casinos/:providerId', before: 'null', after: 'record' },
      { method: 'PUT', path: `casinos/${providerId}`, body: { name: 'Audited, renamed', walletUrl: 'http://127.0.0.1:9/wallet' }, route: '/admin/v1/casinos/:providerId', before: 'record', after: 'record' },
      { method: 'PUT', path: `game-providers/${groupId}`, body: { name: 'Studio' }, route: '/admin/v1/game-providers/:groupId', before: 'null', after: 'record' },
      { method: 'POST', path: `game-providers/${groupId}/tokens`, route: '/admin/v1/game-providers/:groupId/tokens', before: 'null', after: 'record' },
      { method: 'PUT', path: `game-providers/${groupId}/launch-encryption-key`, body: { publicKeyPem: publicKeyPem() }, route: '/admin/v1/game-providers/:groupId', before: 'record', after: 'record' },
      { method: 'DELETE', path: `game-providers/${groupId}/launch-encryption-key`, route: '/admin/v1/game-providers/:groupId', before: 'record', after: 'record' },
      { method: 'PUT', path: `games/${gameId}`, body: { name: 'Game', groupId, frontendUrl: 'https://game.example/' }, route: '/admin/v1/games/:gameId', before: 'null', after: 'record' },
      { method: 'PUT', path: `games/${gameId}/config-template`, body: { properties: [] }, route: '/admin/v1/games/:gameId/config-template', before: 'null', after: 'record' },
      { method: 'PUT', path: `casinos/${providerId}/games/${gameId}/config`, body: { values: {} }, route: '/admin/v1/casinos/:providerId/games/:gameId/config', before: 'null', after: 'record' },
      { method: 'PUT', path: `casinos/${providerId}/games/${gameId}/currencies/EUR`, body: { minBet: 1, maxBet: 100, defaultBet: 5, betSuggestions: [1, 5], maxWin: 1000 }, route: '/admin/v1/casinos/:providerId/games/:gameId/currencies/:currency', before: 'null', after: 'record' },
      { method: 'DELETE', path: `casinos/${providerId}/games/${gameId}/currencies/EUR`, route: '/admin/v1/casinos/:providerId/games/:gameId/currencies/:currency', before: 'record', after: 'null' },
      { method: 'DELETE', path: `casinos/${providerId}`, route: '/admin/v1/casinos/:providerId', before: 'record', after: 'null' },
    ];
    for (const w of writes) {
      const res = await http(w.method, `${p.baseUrl}/admin/v1/${w.path}`, { token: p.adminToken, body: w.body });
      expect([w.method, w.path, res.status]).toEqual([w.method, w.path, w.method === 'POST' ? 201 : 200]);
      for (const key of ['walletSecret', 'launchKey', 'token'] as const) if (res.body.data?.[key]) secrets.push(res.body.data[key]);
      const rows = await auditOf(res.headers.get('x-request-id')!);
      expect([w.path, rows.length]).toEqual([w.path, 1]);
      const [row] = rows;
      expect(row).toMatchObject({ actor_type: 'admin-token', actor_id: 'ADMIN_TOKEN', method: w.method, route: w.route });
      expect(row.client_address).toMatch(/127\.0\.0\.1|::1/);
      expect([w.path, row.before === null ? 'null' : 'record', row.after === null ? 'null' : 'record']).toEqual([w.path, w.before, w.after]);
    }
    expect(secrets.length).toBe(3); // wallet secret and launch key of the new casino, the provider token
    const stored = JSON.stringify(await p.db.primary('audit_log').where('target', 'like', `%${providerId}%`).orWhere('target', 'like', `%${groupId}%`).select('before', 'after'));
    for (const secret of secrets) expect(stored).not.toContain(secret);
    expect(stored).toContain('[redacted]');
    const renamed = (await p.db.primary('audit_log').where({ target: `casinos:${providerId}` }).orderBy('id').select('before', 'after'))[1];
    expect([renamed.before.name, renamed.after.name]).toEqual(['Audited', 'Audited, renamed']);
  });

  it('then a refused write (400, 404) leaves no entry', async () => {
    const res = await http('PUT', `${p.baseUrl}/admin/v1/casinos/${uniqueId('cas')}`, { token: p.adminToken, body: { name: '' } });
    expect(res.status).toBe(400);
    expect(await auditOf(res.headers.get('x-request-id')!)).toEqual([]);
  });
});

describe('When a signed-in platform admin writes through the admin API and the back office', () => {
  it('then the entries name the account, and the account and token writes carry before and after', async () => {
    const admin = await signedInOperator(p, 'admin', { type: 'platform' });
    const groupId = uniqueId('grp');
    const put = await asOperator(admin, 'PUT', `${p.baseUrl}/admin/v1/game-providers/${groupId}`, { body: { name: 'By a person' } });
    expect(put.status).toBe(200);
    expect((await auditOf(put.headers.get('x-request-id')!))[0]).toMatchObject({ actor_type: 'operator', actor_id: admin.accountId });

    const target = await createOperator(p, 'support', { type: 'platform' });
    const disable = await asOperator(admin, 'POST', bo(p, `accounts/${target.accountId}/disable`));
    const [row] = await auditOf(disable.headers.get('x-request-id')!);
    expect(row).toMatchObject({ actor_type: 'operator', actor_id: admin.accountId, action: 'account.disable', route: '/backoffice/v1/accounts/:accountId/disable', target: `account:${target.accountId}` });
    expect([row.before.status, row.after.status]).toEqual(['ACTIVE', 'DISABLED']);

    const created = await p.db.primary('audit_log').where({ action: 'account.create', target: `account:${target.accountId}` }).first();
    expect(created.after.email).toBe(target.email);
    expect(JSON.stringify(created)).not.toContain(target.password);
  });

  it('then signing in and out are in the trail too, with the factor used and the address', async () => {
    const op = await signedInOperator(p, 'support', { type: 'platform' });
    const signIn = await p.db.primary('audit_log').where({ action: 'session.sign-in', actor_id: op.accountId }).first();
    expect(signIn).toMatchObject({ actor_type: 'operator', route: '/backoffice/v1/auth/second-factor', target: `account:${op.accountId}`, after: { factor: 'totp-enrolment' } });
    expect(signIn.client_address).toMatch(/127\.0\.0\.1|::1/);
    const out = await asOperator(op, 'DELETE', bo(p, 'session'));
    const [signOut] = await auditOf(out.headers.get('x-request-id')!);
    expect(signOut).toMatchObject({ actor_id: op.accountId, action: 'session.sign-out', route: '/backoffice/v1/session' });
  });
});

describe('When the audit trail is read', () => {
  it('then platform admins filter it and export it as CSV with the same rows; other roles are refused', async () => {
    const admin = await signedInOperator(p, 'admin', { type: 'platform' });
    for (let i = 0; i < 3; i++) await asOperator(admin, 'PUT', `${p.baseUrl}/admin/v1/game-providers/${uniqueId('grp')}`, { body: { name: `Studio, "quoted" ${i}` } });
    const list = await asOperator(admin, 'GET', bo(p, `audit?actorId=${admin.accountId}&action=admin.put&limit=10`));
    expect(list.status).toBe(200);
    expect(list.body.meta.total).toBe(3);
    expect(list.body.data.map((r: any) => r.actorId)).toEqual([admin.accountId, admin.accountId, admin.accountId]);

    const csv = await asOperator(admin, 'GET', bo(p, `audit.csv?actorId=${admin.accountId}&action=admin.put`));
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.text.split('\n')[0]).toBe('id,occurredAt,actorType,actorId,clientAddress,method,route,requestId,action,target,before,after,prevHash,hash');
    const records: Record<string, string>[] = parseCsv(csv.text, { columns: true });
    expect(records.map((r) => r.id)).toEqual(list.body.data.map((r: any) => r.id).reverse());
    expect(records.map((r) => JSON.parse(r.after).name)).toEqual([0, 1, 2].map((i) => `Studio, "quoted" ${i}`));

    const support = await signedInOperator(p, 'support', { type: 'platform' });
    for (const path of ['audit', 'audit.csv', 'audit/verify']) expect((await asOperator(support, 'GET', bo(p, path))).status).toBe(403);
  });

  // Issue 36, finding 13: exports were not audited.
  it('then every export is in the trail with who took it and its filters, and a refused one is not', async () => {
    const admin = await signedInOperator(p, 'admin', { type: 'platform' });
    const finance = await signedInOperator(p, 'finance', { type: 'platform' });
    expect((await asOperator(admin, 'GET', bo(p, `audit.csv?actorId=${admin.accountId}`))).status).toBe(200);
    expect((await asOperator(finance, 'GET', bo(p, 'money/transactions.csv?currency=EUR'))).status).toBe(200);
    expect((await asOperator(finance, 'GET', bo(p, 'audit.csv'))).status).toBe(403);
    const exports = await p.db.primary('audit_log').where({ action: 'export' }).whereIn('actor_id', [admin.accountId, finance.accountId]).orderBy('id').select('actor_id', 'target', 'route', 'after');
    expect(exports).toEqual([
      { actor_id: admin.accountId, target: 'export:audit.csv', route: '/backoffice/v1/audit.csv', after: { filters: { actorId: admin.accountId } } },
      { actor_id: finance.accountId, target: 'export:transactions.csv', route: '/backoffice/v1/money/transactions.csv', after: { filters: { currency: 'EUR' } } },
    ]);
  });
});

describe('When someone with database access tampers with the trail', () => {
  it('then UPDATE, DELETE and TRUNCATE are refused by the database itself', async () => {
    await expect(p.db.primary.raw("UPDATE audit_log SET action = 'x' WHERE id = (SELECT min(id) FROM audit_log)")).rejects.toThrow(/append-only/);
    await expect(p.db.primary.raw('DELETE FROM audit_log WHERE id = (SELECT min(id) FROM audit_log)')).rejects.toThrow(/append-only/);
    await expect(p.db.primary.raw('TRUNCATE audit_log')).rejects.toThrow(/append-only/);
  });

  it('then with the trigger bypassed, an edited row, a re-hashed row and a deleted row each break the verification', async () => {
    for (let i = 0; i < 3; i++) await http('PUT', `${p.baseUrl}/admin/v1/game-providers/${uniqueId('grp')}`, { token: p.adminToken, body: { name: 'Chain' } });
    const intact = (await http('GET', bo(p, 'audit/verify'), { token: p.adminToken })).body.data;
    expect(intact).toMatchObject({ valid: true, brokenAt: null });
    const last = await p.db.primary('audit_log').where('id', '<=', intact.head.id).orderBy('id', 'desc').first('id', 'hash');
    expect(intact.head).toEqual({ id: String(last.id), hash: last.hash });
    expect(intact.rowsChecked).toBeGreaterThanOrEqual(3);
    const [middle] = await p.db.primary('audit_log').orderBy('id', 'desc').offset(1).limit(1).select('id', 'hash');

    // Each in a transaction that is rolled back: other test files share this database.
    const verdicts = [];
    for (const [sql, bindings] of [
      [`UPDATE audit_log SET after = jsonb_set(after, '{name}', '"Edited"') WHERE id = ?`, [middle.id]],
      [`UPDATE audit_log SET action = 'edited', hash = encode(sha256(convert_to(prev_hash || 'forged', 'UTF8')), 'hex') WHERE id = ?`, [middle.id]],
      ['DELETE FROM audit_log WHERE id = ?', [middle.id]],
    ] as const) {
      verdicts.push(await verdictOf(sql, [...bindings]));
    }
    expect(verdicts).toEqual([
      { valid: false, brokenAt: { id: String(middle.id), reason: 'edited' } },
      { valid: false, brokenAt: { id: String(middle.id), reason: 'edited' } },
      { valid: false, brokenAt: { id: expect.any(String), reason: 'link' } },
    ]);
    expect((await http('GET', bo(p, 'audit/verify'), { token: p.adminToken })).body.data.valid).toBe(true);
  });
});

/** Runs one tampering statement and the verification in a transaction that is then rolled back. */
async function verdictOf(sql: string, bindings: unknown[]): Promise<{ valid: boolean; brokenAt: unknown }> {
  const trx = await p.db.primary.transaction();
  try {
    await trx.raw("SET LOCAL session_replication_role = 'replica'");
    await trx.raw(sql, bindings as never[]);
    const { valid, brokenAt } = await verifyAuditChain(trx);
    return { valid, brokenAt };
  } finally {
    await trx.rollback();
  }
}

describe('When the audit entry of an admin write cannot be written', () => {
  it('then the write does not stand either: the caller gets an error and the record is unchanged', async () => {
    const providerId = uniqueId('cas-audit-fails');
    const created = await http('PUT', `${p.baseUrl}/admin/v1/casinos/${providerId}`, { token: p.adminToken, body: { name: 'Before', walletUrl: 'http://127.0.0.1:9/wallet' } });
    expect(created.status).toBe(200);
    // A trigger that refuses this casino's next entries (and no one else's: test files share the database).
    const fn = `refuse_audit_${providerId.replace(/\W/g, '_')}`;
    await p.db.primary.raw(`CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      IF NEW.target = 'casinos:${providerId}' THEN RAISE EXCEPTION 'audit refused for the test'; END IF; RETURN NEW; END $$`);
    await p.db.primary.raw(`CREATE TRIGGER ${fn} BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION ${fn}()`);
    try {
      const renamed = await http('PUT', `${p.baseUrl}/admin/v1/casinos/${providerId}`, { token: p.adminToken, body: { name: 'After', walletUrl: 'http://127.0.0.1:9/wallet' } });
      expect(renamed.status).toBe(500);
      expect(renamed.body).toMatchObject({ error: 'INTERNAL_ERROR' });
      const row = await p.db.primary('casinos').where({ provider_id: providerId }).first('name');
      expect(row.name).toBe('Before');
    } finally {
      await p.db.primary.raw(`DROP TRIGGER ${fn} ON audit_log`);
      await p.db.primary.raw(`DROP FUNCTION ${fn}()`);
    }
    // Once entries can be written again, the same write stands with its entry.
    const again = await http('PUT', `${p.baseUrl}/admin/v1/casinos/${providerId}`, { token: p.adminToken, body: { name: 'After', walletUrl: 'http://127.0.0.1:9/wallet' } });
    expect(again.status).toBe(200);
    const entries = await p.db.primary('audit_log').where({ target: `casinos:${providerId}` }).orderBy('id').select('after');
    expect(entries.map((e: { after: { name: string } }) => e.after.name)).toEqual(['Before', 'After']);
  });
});
