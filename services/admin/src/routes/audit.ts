import type { Request, RequestHandler, Response } from 'express';
import { AppError, appendAudit, clientAddress, currentContext, type Identity, type Knex, type Logger } from '@relay/shared';

/**
 * A signed-in person reaches the admin API only as a platform admin (the ADMIN_TOKEN always is one).
 */
export const platformAdminsOnly: RequestHandler = (req, _res, next) => {
  const id = req.identity;
  if (id?.kind === 'admin' || (id?.kind === 'operator' && id.role === 'admin' && id.scope.type === 'platform')) return next();
  next(new AppError('PERMISSION_DENIED', 'Only platform admins use the admin API'));
};

/** The record a write route changes, as rows of one table, so the trail shows it before and after. */
interface Target {
  route: string;
  table: string;
  where: Record<string, string | number>;
}

const ID = /^[\w.~@+-]{1,128}$/;
const num = (s: string) => (/^\d{1,10}$/.test(s) ? Number(s) : -1);

const TARGETS: { pattern: RegExp; route: string; table: string; where: (m: string[]) => Record<string, string | number> }[] = [
  { pattern: /^\/casinos\/([^/]+)\/games\/([^/]+)\/config$/, route: '/casinos/:providerId/games/:gameId/config', table: 'casino_game_configs', where: (m) => ({ provider_id: m[1], game_id: num(m[2]) }) },
  { pattern: /^\/casinos\/([^/]+)\/games\/([^/]+)\/currencies\/([^/]+)$/, route: '/casinos/:providerId/games/:gameId/currencies/:currency', table: 'currency_configs', where: (m) => ({ provider_id: m[1], game_id: num(m[2]), currency: m[3].toUpperCase() }) },
  { pattern: /^\/casinos\/([^/]+)$/, route: '/casinos/:providerId', table: 'casinos', where: (m) => ({ provider_id: m[1] }) },
  { pattern: /^\/game-providers\/([^/]+)\/tokens$/, route: '/game-providers/:groupId/tokens', table: 'provider_tokens', where: (m) => ({ group_id: m[1] }) },
  { pattern: /^\/game-providers\/([^/]+)\/tokens\/([^/]+)$/, route: '/game-providers/:groupId/tokens/:tokenId', table: 'provider_tokens', where: (m) => ({ group_id: m[1], token_id: m[2] }) },
  { pattern: /^\/game-providers\/([^/]+)(?:\/launch-encryption-key)?$/, route: '/game-providers/:groupId', table: 'game_providers', where: (m) => ({ group_id: m[1] }) },
  { pattern: /^\/games\/([^/]+)\/config-template$/, route: '/games/:gameId/config-template', table: 'game_config_templates', where: (m) => ({ game_id: num(m[1]) }) },
  { pattern: /^\/games\/([^/]+)$/, route: '/games/:gameId', table: 'games', where: (m) => ({ game_id: num(m[1]) }) },
];

function targetOf(path: string): Target | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return null;
  }
  for (const t of TARGETS) {
    const m = t.pattern.exec(decoded);
    // An id no record can have is refused by the route itself (400); nothing to look up.
    if (m) return m.slice(1).every((id) => ID.test(id)) ? { route: t.route, table: t.table, where: t.where(m) } : null;
  }
  return null;
}

async function snapshot(db: Knex, target: Target | null): Promise<unknown> {
  if (!target) return null;
  const rows = await db(target.table).where(target.where).select('*');
  return rows.length === 0 ? null : rows.length === 1 ? rows[0] : rows;
}

function actorOf(identity: Identity | undefined): { actorType: 'admin-token' | 'operator'; actorId: string } {
  return identity?.kind === 'operator' ? { actorType: 'operator', actorId: identity.accountId } : { actorType: 'admin-token', actorId: 'ADMIN_TOKEN' };
}

/**
 * Every successful write through the admin API is recorded in the audit trail (libs/shared
 * audit.ts) with the record before and after it (secret columns redacted), read from the
 * database on either side of the route's own transaction. The answer waits for the entry, so a
 * caller that has its answer knows the entry exists. The entry is written after the change
 * commits: if that write fails the change stands, and the failure is logged at error.
 */
export function auditAdminWrites(db: Knex, logger: Logger): RequestHandler {
  return async (req: Request, res: Response, next) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return next();
    const target = targetOf(req.path);
    const before = await snapshot(db, target);
    const send = res.json.bind(res);
    res.json = (body: unknown) => {
      if (res.statusCode >= 300) return send(body);
      const record = async () => {
        const after = await snapshot(db, target);
        await db.transaction((trx) =>
          appendAudit(trx, {
            ...actorOf(req.identity),
            clientAddress: clientAddress(req.headers['x-forwarded-for'], req.socket.remoteAddress),
            method: req.method,
            route: `${req.baseUrl}${target?.route ?? req.path}`,
            requestId: currentContext()?.requestId ?? null,
            action: `admin.${req.method.toLowerCase()}`,
            target: target ? `${target.table}:${Object.values(target.where).join('/')}` : req.path,
            before,
            after,
          }),
        );
      };
      record().then(
        () => send(body),
        (err: unknown) => {
          logger.error({ err, route: req.path }, 'could not record an admin write in the audit trail');
          send(body);
        },
      );
      return res;
    };
    next();
  };
}
