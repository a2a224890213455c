import { AppError, currentContext, newId, randomSecret, type Knex, type Registry, type SecretBox, type SessionStore } from '@relay/shared';
import { openLaunchToken } from './launch-token';
import { buildRedirect, importLaunchPublicKey } from './redirect';

export interface LaunchRequest {
  token: string;
  providerId: string;
  gameId: number;
  currency: string;
  language: string;
  /** The launch query string exactly as received (without '?'), for forwarding verbatim. */
  rawQuery: string;
}

export interface LaunchDeps {
  db: Knex;
  registry: Registry;
  sessions: SessionStore;
  secrets: SecretBox;
  sessionTtlSeconds: number;
}

/**
 * A casino sends a player here: check the casino, its token and the game, open a session, and
 * answer the address of the game. No casino wallet is called (spec rule 8), so a wallet outage
 * never keeps a player out of the game.
 */
export async function launch(deps: LaunchDeps, req: LaunchRequest): Promise<string> {
  const casino = await deps.registry.casino(req.providerId);
  if (!casino) throw new AppError('PROVIDER_NOT_FOUND', 'Unknown casino');
  const ctx = currentContext();
  if (ctx) ctx.providerId = casino.providerId; // the launch's log lines name the casino
  if (casino.status !== 'ACTIVE') throw new AppError('PROVIDER_NOT_ACTIVE', 'Casino is not active');

  const claims = await openLaunchToken(req.token, casino.launchKey, req);

  const game = await deps.registry.game(req.gameId);
  if (!game) throw new AppError('GAME_NOT_FOUND', 'Unknown game');
  if (game.status !== 'ACTIVE' || game.groupStatus !== 'ACTIVE') throw new AppError('GAME_NOT_ACTIVE', 'Game is not active');

  const now = new Date();
  const session = {
    sessionId: `${newId().replace(/-/g, '')}${randomSecret(9)}`,
    groupId: game.groupId,
    gameId: game.gameId,
    providerId: casino.providerId,
    playerId: claims.playerId,
    currency: req.currency,
    language: req.language,
    username: claims.username ?? null,
    walletTokenSealed: deps.secrets.seal(claims.walletToken),
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + deps.sessionTtlSeconds * 1000).toISOString(),
  };

  await deps.db.transaction(async (trx) => {
    if (claims.jti) {
      // Single use: the insert is the check, so two launches racing with one jti cannot both pass.
      const inserted = await trx('launch_token_uses')
        .insert({ provider_id: casino.providerId, jti: claims.jti, expires_at: new Date(claims.exp * 1000 + 60_000) })
        .onConflict(['provider_id', 'jti'])
        .ignore()
        .returning('jti');
      if (inserted.length === 0) throw new AppError('INVALID_LAUNCH_TOKEN', 'Launch token refused: already used');
    }
    await deps.sessions.insert(trx, session);
  });
  await deps.sessions.cache(session);

  const publicKey = game.launchPublicKeyPem ? await importLaunchPublicKey(game.launchPublicKeyPem) : null;
  return buildRedirect(game.frontendUrl, req.rawQuery, session.sessionId, publicKey);
}
