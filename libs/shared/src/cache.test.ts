import { ConfigCache } from './cache';

/** Issue 36, finding 8: unknown tokens fill the token caches; the keys in use must stay. */
describe('When a token cache is full', () => {
  const load = (value: string) => async () => value;
  // Without a change bus a cache keeps entries for its degraded lifetime: a minute here, so that a
  // loaded machine's slow loop does not expire what the test means to see evicted or kept.

  it('then the least recently used entry leaves, not the whole cache', async () => {
    const cache = new ConfigCache<string>(['token'], null, 60_000, 60_000, 3);
    for (const key of ['a', 'b', 'c']) await cache.getOrLoad(key, load(key));
    expect(cache.peek('a')).toBe('a'); // a is now the most recently used
    await cache.getOrLoad('d', load('d'));
    expect(['a', 'b', 'c', 'd'].map((k) => cache.peek(k))).toEqual(['a', undefined, 'c', 'd']);
  });

  it('then a flood of unknown keys does not push out a key that keeps being used', async () => {
    const cache = new ConfigCache<string | null>(['token'], null, 60_000, 60_000, 100);
    await cache.getOrLoad('in-use', load('owner'));
    let loads = 0;
    for (let i = 0; i < 10_000; i++) {
      await cache.getOrLoad(`junk-${i}`, async () => null);
      if (i % 50 === 0) await cache.getOrLoad('in-use', async () => { loads++; return 'owner'; });
    }
    expect(loads).toBe(0);
    expect(cache.peek('in-use')).toBe('owner');
  });

  it('then an expired entry is loaded again', async () => {
    const cache = new ConfigCache<string>(['token'], null, 1, 1, 10);
    await cache.getOrLoad('a', load('old'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(cache.peek('a')).toBeUndefined();
    expect(await cache.getOrLoad('a', load('new'))).toBe('new');
  });
});
