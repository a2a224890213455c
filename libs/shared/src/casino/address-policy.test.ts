import { CasinoAddressPolicy } from './address-policy';

const policy = new CasinoAddressPolicy(true, '');

describe('CasinoAddressPolicy', () => {
  it.each([
    ['::7f00:1', 'IPv4-compatible 127.0.0.1'],
    ['::ffff:127.0.0.1', 'IPv4-mapped 127.0.0.1'],
    ['::1', 'loopback'],
    ['2002:7f00:1::1', '6to4 of 127.0.0.1'],
    ['2002:a9fe:a9fe::1', '6to4 of 169.254.169.254'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of 169.254.169.254'],
    ['64:ff9b::a00:1', 'NAT64 of 10.0.0.1'],
    ['64:ff9b:1::a00:1', 'local-use NAT64'],
    ['fec0::1', 'site-local'],
    ['fd00::1', 'unique local'],
    ['100::1', 'discard-only'],
  ])('When a casino address is %s (%s), then it is refused', (address) => {
    expect(policy.refusal(address)).not.toBeNull();
  });

  it.each([
    ['93.184.216.34', 'public IPv4'],
    ['2606:4700::1111', 'public IPv6'],
    ['64:ff9b::5db8:d822', 'NAT64 of a public IPv4 (DNS64 in an IPv6-only cluster)'],
    ['2002:5db8:d822::1', '6to4 of a public IPv4'],
  ])('When a casino address is %s (%s), then it may be called', (address) => {
    expect(policy.refusal(address)).toBeNull();
  });
});
