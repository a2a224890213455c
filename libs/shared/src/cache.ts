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
 * never wrong.
 */
export class ConfigCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();
  private generation = 0;

  constructor(
    kinds: ChangeKind[],
    private readonly bus: ChangeBus | null,
    private readonly ttlMs = 30000,
    private readonly degradedTtlMs = 500,
  ) {
    bus?.onChange((change) => {
      if (change === null || kinds.includes(change.kind)) this.clear();
    });
  }

  /** The cached value of `key`, or undefined when it must be loaded. */
  peek(key: string): V | undefined {
    const hit = this.entries.get(key);
    return hit && hit.expiresAt > Date.now() ? hit.value : undefined;
  }

  async getOrLoad(key: string, load: () => Promise<V>): Promise<V> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) return hit.value;
    const generation = this.generation;
    const value = await load();
    // A change that arrived while loading may concern the value just read: do not keep it.
    if (generation === this.generation) {
      const ttl = this.bus?.healthy ? this.ttlMs : this.degradedTtlMs;
      if (this.entries.size > 50000) this.entries.clear();
      this.entries.set(key, { value, expiresAt: now + ttl });
    }
    return value;
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
