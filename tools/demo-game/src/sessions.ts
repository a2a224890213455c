import type { RelayClient, RelaySession } from './relay';

/**
 * Sessions this backend has validated with the relay. The page sends only a sessionId; who the
 * player is, their casino and currency come from the relay's answer, never from the page or its
 * URL (spec, Session: the forwarded launch parameters are untrusted).
 */
const MAX_SESSIONS = 10_000;

export class SessionBook {
  private readonly sessions = new Map<string, RelaySession>();

  constructor(
    private readonly relay: RelayClient,
    private readonly gameId: number,
  ) {}

  /** Validates with the relay (a live casino balance call), then remembers the answer. */
  async validate(sessionId: string, currency?: string): Promise<RelaySession> {
    const session = await this.relay.validateSession(sessionId, this.gameId, currency);
    this.remember(session);
    return session;
  }

  /** A session validated before, else validated now. */
  async resolve(sessionId: string): Promise<RelaySession> {
    const known = this.sessions.get(sessionId);
    if (known && Date.parse(known.expiresAt) > Date.now()) return known;
    return this.validate(sessionId);
  }

  private remember(session: RelaySession): void {
    this.sessions.delete(session.sessionId);
    if (this.sessions.size >= MAX_SESSIONS) {
      const now = Date.now();
      for (const [id, s] of this.sessions) if (Date.parse(s.expiresAt) <= now) this.sessions.delete(id);
      // Still full: forget the oldest; it is validated again on its next call.
      if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string);
    }
    this.sessions.set(session.sessionId, session);
  }
}
