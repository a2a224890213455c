import { clientKey } from './client-address';

describe('clientKey', () => {
  it('When addresses share an IPv6 /64, then they are one client, in every spelling', () => {
    const keys = ['2001:db8:1:2::1', '2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:0DB8:0001:0002:0:0:0:abcd'].map(clientKey);
    expect(new Set(keys)).toEqual(new Set(['2001:db8:1:2::/64']));
    expect(clientKey('2001:db8:1:3::1')).not.toBe(keys[0]);
  });

  it('When an IPv4 address arrives plain or IPv4-mapped, then it is the same client, and others differ', () => {
    expect(clientKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(clientKey('192.0.2.7')).toBe('192.0.2.7');
    expect(clientKey('192.0.2.8')).not.toBe(clientKey('192.0.2.7'));
  });

  it('When no address is known, then the value is kept as it is', () => {
    expect(clientKey('unknown')).toBe('unknown');
  });
});
