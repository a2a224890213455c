import { ADMIN, startMoneyWorld, type MoneyWorld } from './money-support';

/** The list of every casino's flag thresholds that the console's thresholds screen reads. */
let w: MoneyWorld;

beforeAll(async () => {
  w = await startMoneyWorld();
}, 90000);
afterAll(async () => {
  await w?.stop();
});

describe("When a platform admin lists every casino's flag thresholds", () => {
  it('then each casino shows its own or the defaults, who set them, and the change is in the audit trail', async () => {
    const admin = await w.as('admin', { type: 'platform' });
    const before = await admin('GET', 'money/flag-thresholds');
    expect(before.status).toBe(200);
    const row = (res: typeof before, providerId: string) => res.body.data.find((t: { providerId: string }) => t.providerId === providerId);
    expect(row(before, w.a.providerId)).toEqual({ providerId: w.a.providerId, name: expect.any(String), status: 'ACTIVE', isDefault: true, multiplierOver: 500, payoutOver: { '*': 10000 }, updatedBy: null, updatedAt: null });
    const ids = before.body.data.map((t: { providerId: string }) => t.providerId);
    expect(ids).toEqual([...ids].sort());

    const put = await admin('PUT', `money/flag-thresholds/${w.a.providerId}`, { multiplierOver: 25.5, payoutOver: { EUR: 2500.5, '*': 9000 } });
    expect(put.status).toBe(200);
    const after = await admin('GET', 'money/flag-thresholds');
    expect(row(after, w.a.providerId)).toMatchObject({ isDefault: false, multiplierOver: 25.5, payoutOver: { EUR: 2500.5, '*': 9000 }, updatedBy: expect.any(String) });
    expect(Date.parse(row(after, w.a.providerId).updatedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(row(after, w.b.providerId)).toMatchObject({ isDefault: true });
    const audit = await ADMIN(w, `audit?action=flag-thresholds.set&target=flag-thresholds/${w.a.providerId}`);
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0].actorId).toBe(row(after, w.a.providerId).updatedBy);
  });

  it('then nobody else may read the list: not a casino admin, not platform finance', async () => {
    for (const [role, scope] of [['admin', { type: 'casino', providerId: w.a.providerId }], ['finance', { type: 'platform' }], ['support', { type: 'studio', groupId: w.a.groupId }]] as const) {
      const res = await (await w.as(role, scope))('GET', 'money/flag-thresholds');
      expect([role, scope.type, res.status, res.body.error]).toEqual([role, scope.type, 403, 'PERMISSION_DENIED']);
    }
  });
});
