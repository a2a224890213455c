import { IdentitySigner, IdentityVerifier } from './identity';

const OLD = 'old-internal-secret-of-at-least-32-chars';
const NEW = 'new-internal-secret-of-at-least-32-chars';

describe('identity verification during a secret rotation', () => {
  it('When services accept both secrets, then identities signed with either pass, and with neither fail', async () => {
    const verifier = new IdentityVerifier(NEW, [OLD]);
    for (const secret of [OLD, NEW]) {
      expect(await verifier.verify(await new IdentitySigner(secret).sign({ kind: 'provider', groupId: 'g1' }))).toEqual({ kind: 'provider', groupId: 'g1' });
    }
    expect(await verifier.verify(await new IdentitySigner('a-third-secret-of-at-least-32-characters').sign({ kind: 'admin' }))).toBeNull();
  });

  it('When the rotation is over, then an identity signed with the old secret is refused', async () => {
    const token = await new IdentitySigner(OLD).sign({ kind: 'admin' });
    expect(await new IdentityVerifier(NEW).verify(token)).toBeNull();
    expect(await new IdentityVerifier(OLD).verify(token)).toEqual({ kind: 'admin' });
  });
});
