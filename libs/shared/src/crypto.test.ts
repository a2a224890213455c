import { SecretBox, constantTimeEqual, hashToken } from './crypto';

describe('SecretBox', () => {
  it('When a secret is sealed, then only the same key opens it and the text never shows', () => {
    const box = new SecretBox('k'.repeat(32));
    const sealed = box.seal('wallet-token-123');
    expect(sealed).not.toContain('wallet-token-123');
    expect(box.open(sealed)).toBe('wallet-token-123');
    expect(() => new SecretBox('x'.repeat(32)).open(sealed)).toThrow();
  });

  it('When a sealed value is tampered with, then opening fails', () => {
    const box = new SecretBox('k'.repeat(32));
    const parts = box.seal('abc').split('.');
    parts[3] = Buffer.from('abd').toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow();
  });

  it('When the key is being rotated, then values sealed under either key open, and new values are sealed under the new key only', () => {
    const oldKey = 'o'.repeat(32);
    const newKey = 'n'.repeat(32);
    const before = new SecretBox(oldKey).seal('secret-a');
    // Step 1: every process accepts the new key, still seals with the old one.
    const step1 = new SecretBox(oldKey, [newKey]);
    // Step 2: every process seals with the new key, still opens the old one.
    const step2 = new SecretBox(newKey, [oldKey]);
    const during = step2.seal('secret-b');
    for (const box of [step1, step2]) {
      expect(box.open(before)).toBe('secret-a');
      expect(box.open(during)).toBe('secret-b');
    }
    expect(step2.sealedWithCurrentKey(during)).toBe(true);
    expect(step2.sealedWithCurrentKey(before)).toBe(false);
    // Step 3: the old key is gone; only what was re-sealed opens.
    expect(new SecretBox(newKey).open(during)).toBe('secret-b');
    expect(() => new SecretBox(newKey).open(before)).toThrow();
  });

  it('When tokens are compared, then equality is exact', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(hashToken('a')).toHaveLength(64);
  });
});
