import type { Knex } from 'knex';
import type { Redis } from 'ioredis';

/** A player session as stored. The wallet token stays sealed (SecretBox) everywhere it rests. */
export interface SessionRecord {
  sessionId: string;
  groupId: string;
  gameId: number;
  providerId: string;
  playerId: string;
  currency: string;
  language: string;
  username: string | null;
  walletTokenSealed: string;
  createdAt: string;
  expiresAt: string;
}

interface SessionRow {
  session_id: string;
  group_id: string;
  game_id: number;
  provider_id: string;
  player_id: string;
  currency: string;
  language: string;
  username: string | null;
  wallet_token_enc: string;
  created_at: Date;
  expires_at: Date;
}

function fromRow(row: SessionRow): SessionRecord {
  return {
    sessionId: row.session_id,
    groupId: row.group_id,
    gameId: row.game_id,
    providerId: row.provider_id,
    playerId: row.player_id,
    currency: row.currency,
    language: row.language,
    username: row.username,
    walletTokenSealed: row.wallet_token_enc,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
  };
}

/**
 * Live sessions are read from Redis (no PostgreSQL round trip on the hot path) and expire there
 * on their own after SESSION_TTL_SECONDS. PostgreSQL holds the durable copy: it answers when Redis
 * lost a live session (a restart) and is the archive the cash-in retry route reads for
 * SESSION_ARCHIVE_DAYS. Nothing ever extends a session.
 */
export class SessionStore {
  /**
   * A session never changes after launch and expires at a fixed instant, so a process may keep it
   * in memory until then: the hot path then needs no network round trip at all.
   */
  private readonly local = new Map<string, SessionRecord>();
  private static readonly LOCAL_MAX = 100_000;

  constructor(
    private readonly db: Knex,
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly archiveDays: number,
  ) {}

  private key(sessionId: string): string {
    return `${this.keyPrefix}:session:${sessionId}`;
  }

  /** Inserts the durable row inside the caller's transaction; call `cache` after it commits. */
  async insert(trx: Knex.Transaction | Knex, s: SessionRecord): Promise<void> {
    const expiresAt = new Date(s.expiresAt);
    await trx('sessions').insert({
      session_id: s.sessionId,
      group_id: s.groupId,
      game_id: s.gameId,
      provider_id: s.providerId,
      player_id: s.playerId,
      currency: s.currency,
      language: s.language,
      username: s.username,
      wallet_token_enc: s.walletTokenSealed,
      created_at: new Date(s.createdAt),
      expires_at: expiresAt,
      archive_until: new Date(expiresAt.getTime() + this.archiveDays * 86400_000),
    });
  }

  /** Best effort: a session missing from Redis is still found in PostgreSQL. */
  async cache(s: SessionRecord): Promise<void> {
    const ttlMs = new Date(s.expiresAt).getTime() - Date.now();
    if (ttlMs <= 0) return;
    try {
      await this.redis.set(this.key(s.sessionId), JSON.stringify(s), 'PX', ttlMs);
    } catch {
      // Redis down: the durable row serves reads until Redis is back.
    }
  }

  /** A live (unexpired) session, or null. */
  async getLive(sessionId: string): Promise<SessionRecord | null> {
    const known = this.local.get(sessionId);
    if (known) {
      if (new Date(known.expiresAt).getTime() > Date.now()) return known;
      this.local.delete(sessionId);
      return null;
    }
    const found = await this.fetchLive(sessionId);
    if (found) this.remember(found);
    return found;
  }

  private remember(s: SessionRecord): void {
    if (this.local.size >= SessionStore.LOCAL_MAX) {
      // Oldest first: Map keeps insertion order.
      for (const key of this.local.keys()) {
        this.local.delete(key);
        if (this.local.size < SessionStore.LOCAL_MAX * 0.9) break;
      }
    }
    this.local.set(s.sessionId, s);
  }

  private async fetchLive(sessionId: string): Promise<SessionRecord | null> {
    let cached: string | null = null;
    try {
      cached = await this.redis.get(this.key(sessionId));
    } catch {
      cached = null;
    }
    if (cached) {
      const s = JSON.parse(cached) as SessionRecord;
      return new Date(s.expiresAt).getTime() > Date.now() ? s : null;
    }
    const row = await this.db<SessionRow>('sessions').where('session_id', sessionId).where('expires_at', '>', new Date()).first();
    if (!row) return null;
    const s = fromRow(row);
    await this.cache(s);
    return s;
  }

  /** Live or expired, as long as it is still inside the archive window (cash-in retry). */
  async getArchived(sessionId: string): Promise<SessionRecord | null> {
    const live = await this.getLive(sessionId);
    if (live) return live;
    const row = await this.db<SessionRow>('sessions').where('session_id', sessionId).where('archive_until', '>', new Date()).first();
    return row ? fromRow(row) : null;
  }

  /** Deletes archived sessions past retention, in batches so the table is never locked long. */
  async purgeExpiredArchive(batchSize = 5000): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.db.raw(
        `DELETE FROM sessions WHERE session_id IN (SELECT session_id FROM sessions WHERE archive_until <= now() LIMIT ?)`,
        [batchSize],
      );
      const count = (deleted as { rowCount: number }).rowCount;
      total += count;
      if (count < batchSize) return total;
    }
  }
}
