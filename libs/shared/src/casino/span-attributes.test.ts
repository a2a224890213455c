import { casinoSpanAttributes } from './span-attributes';

describe('casino span attributes', () => {
  it('When the wallet URL carries credentials, a query or a fragment, then url.full keeps none of them', () => {
    expect(casinoSpanAttributes('https://relay:s3cret@wallet.casino.example:8443/api/wallet/?token=abc#x', 'debit')).toEqual({
      'http.request.method': 'POST',
      'url.full': 'https://wallet.casino.example:8443/api/wallet/debit',
      'server.address': 'wallet.casino.example',
      'server.port': 8443,
    });
  });

  it('When the URL names no port, then the scheme\'s default is the server port', () => {
    expect(casinoSpanAttributes('https://wallet.example/w', 'credit')['server.port']).toBe(443);
    expect(casinoSpanAttributes('http://wallet.example', 'balance')).toMatchObject({ 'url.full': 'http://wallet.example/balance', 'server.port': 80 });
  });

  it('When the URL is not a URL, then only the method is recorded', () => {
    expect(casinoSpanAttributes('not a url', 'debit')).toEqual({ 'http.request.method': 'POST' });
  });
});
