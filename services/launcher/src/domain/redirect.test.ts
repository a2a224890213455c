import { buildRedirect } from './redirect';

describe('buildRedirect', () => {
  test('When names are percent-encoded, then token and clashing names are recognised by their decoded name', async () => {
    const location = await buildRedirect('https://g.example/play?skin=dark', 't%6Fken=secret&sk%69n=light&foo=a%20b', 'S1', null);
    expect(location).toBe('https://g.example/play?skin=dark&sessionId=S1&foo=a%20b');
  });

  test('When the frontendUrl carries a sessionId of its own, then only the relay one remains', async () => {
    const location = await buildRedirect('https://g.example/play?sessionId=stale&skin=dark#top', 'foo=bar', 'S1', null);
    expect(location).toBe('https://g.example/play?skin=dark&sessionId=S1&foo=bar#top');
  });

  test('When the launch query has empty pieces, then they are not forwarded as empty parameters', async () => {
    const location = await buildRedirect('https://g.example/play', '&&foo=1&&bar=&', 'S1', null);
    expect(location).toBe('https://g.example/play?sessionId=S1&foo=1&bar=');
  });
});
