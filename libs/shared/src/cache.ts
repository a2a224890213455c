import type { Redis } from 'ioredis';
import { createRedis } from './redis';

/**
 * docs/api/admin.json: an admin change takes effect on every game route within one second, whatever
 * caches sit between. Admin publishes a change on Redis after committing; every process drops the
 * named entries at once. While the subscription is down (a Redis restart) the caches fall back to
 * a half-second lifetime, so a lost message can never keep a stale entry past the second.
 */
export type ChangeKind = 'casino' | 'game' | 'group' | 'token' | 'config' | 'casino-api-token';

export interface Change {
  kind: ChangeKind;
  key: string;
}

export class ChangeBus {
  private subscriber: Redis | null = null;
  private readonly listeners = new Set<(change: Change | null) => void>();
  private subscribed = false;
  readonly channel: string;

  constructor(
    private readonly redisUrl: string,
    prefix: string,
    private readonly publisher: Redis,
  ) {
    this.channel = `${prefix}:config-changes`;
  }

  get healthy(): boolean {
    return this.subscribed;
  }

  async start(): Promise<void> {
    const sub = createRedis(this.redisUrl, 'subscriber');
    this.subscriber = sub;
    sub.on('ready', () => {
      sub.subscribe(this.channel).then(
        () => {
          this.subscribed = true;
          this.emit(null); // anything may have changed while we were not listening
        },
        () => (this.subscribed = false),
      );
    });
    sub.on('close', () => (this.subscribed = false));
    sub.on('end', () => (this.subscribed = false));
    sub.on('message', (_channel: string, message: string) => {
      try {
        this.emit(JSON.parse(message) as Change);
      } catch {
        this.emit(null);
      }
    });
  }

  onChange(listener: (change: Change | null) => void): void {
    this.listeners.add(listener);
  }

  async publish(change: Change): Promise<void> {
    this.emit(change); // this process first, without waiting for the round trip
    await this.publisher.publish(this.channel, JSON.stringify(change));
  }

  async stop(): Promise<void> {
    this.subscribed = false;
    if (this.subscriber) {
      this.subscriber.disconnect();
      this.subscriber = null;
    }
  }

  private emit(change: Change | null): void {
    for (const l of this.listeners) l(change);
  }
}

/**
 * A read-through cache of admin-managed records. Admin changes are rare, so any change of a kind
 * this cache depends on clears it whole: simpler than tracking which keys a change touches, and
 * never wrong. It holds at most `capacity` entries and lets the least recently used go first: a
 * flood of unknown keys (junk tokens, each cached as unknown) pushes out other junk, not the keys
 * in use (a Map keeps insertion order; a hit moves its key to the end).
 */
export class ConfigCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private generation = 0;

  constructor(
    kinds: ChangeKind[],
    private readonly bus: ChangeBus | null,
    private readonly ttlMs = 30000,
    private readonly degradedTtlMs = 500,
    private readonly capacity = 50_000,
  ) {
    bus?.onChange((change) => {
      if (change === null || kinds.includes(change.kind)) this.clear();
    });
  }

  /** The cached value of `key`, or undefined when it must be loaded. */
  peek(key: string): V | undefined {
    return this.fresh(key, Date.now())?.value;
  }

  async getOrLoad(key: string, load: () => Promise<V>): Promise<V> {
    const now = Date.now();
    const hit = this.fresh(key, now);
    if (hit) return hit.value;
    const generation = this.generation;
    const value = await load();
    // A change that arrived while loading may concern the value just read: do not keep it.
    if (generation === this.generation) {
      const ttl = this.bus?.healthy ? this.ttlMs : this.degradedTtlMs;
      this.entries.delete(key);
      while (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(key, { value, expiresAt: now + ttl });
    }
    return value;
  }

  /** The live entry of `key`, made the most recently used; an expired one is dropped. */
  private fresh(key: string, now: number): { value: V; expiresAt: number } | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    this.entries.delete(key);
    if (hit.expiresAt <= now) return undefined;
    this.entries.set(key, hit);
    return hit;
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
