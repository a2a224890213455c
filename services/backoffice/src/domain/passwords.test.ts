import { checkPasswordPolicy, hashPassword, verifyPassword } from './passwords';

describe('the password policy', () => {
  it.each([
    ['short1!', 'too short'],
    ['password1234', 'common'],
    ['iloveyou1234', 'common'],
    ['Qwertyuiop!!', 'common with a suffix of symbols'],
    ['jane.doe-secret-99', 'contains the email'],
    ['aaaaaaaaaaaaaaaa', 'too few different characters'],
  ])('When the password is %s (%s), then it is refused with WEAK_PASSWORD', (password) => {
    expect(() => checkPasswordPolicy(password, 'jane.doe@example.test')).toThrow(expect.objectContaining({ code: 'WEAK_PASSWORD' }));
  });

  it('When the password is long, uncommon and unrelated to the email, then it is accepted', () => {
    expect(() => checkPasswordPolicy('violet-harbour-47-lantern', 'jane.doe@example.test')).not.toThrow();
  });

  it('When a password is hashed, then the hash is argon2id, verifies it, and refuses another', async () => {
    const hash = await hashPassword('violet-harbour-47-lantern');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifyPassword(hash, 'violet-harbour-47-lantern')).toBe(true);
    expect(await verifyPassword(hash, 'violet-harbour-47-lanterN')).toBe(false);
    expect(await verifyPassword('not a hash', 'x')).toBe(false);
  });
});
