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

  it('When tokens are compared, then equality is exact', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(hashToken('a')).toHaveLength(64);
  });
});
