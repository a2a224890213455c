import { AsyncLocalStorage } from 'node:async_hooks';
import type { Request, RequestHandler, Response } from 'express';
import { AppError, appendAudit, clientAddress, currentContext, toAppError, type Change, type Identity, type Knex, type Logger } from '@relay/shared';

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
  { pattern: /^\/casinos\/([^/]+)\/free-rounds$/, route: '/casinos/:providerId/free-rounds', table: 'casinos', where: (m) => ({ provider_id: m[1] }) },
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

/** The transaction an admin write runs in, and the cache changes to publish once it commits. */
export interface WriteScope {
  trx: Knex.Transaction;
  changes: Change[];
}

export const writeScope = new AsyncLocalStorage<WriteScope>();

/**
 * Every successful write through the admin API is recorded in the audit trail (libs/shared
 * audit.ts) in the same database transaction as the write, with the record before and after it
 * (secret columns redacted): the change and its entry commit together or not at all. The route
 * runs inside that transaction (AdminDeps.db is the request's transaction while one is open, and
 * the use cases' own transactions become savepoints of it); its answer is held until the entry
 * is written and the transaction committed, and the cache changes it announced are published only
 * after that commit. A refused write (an error answer) rolls everything back.
 */
export function auditAdminWrites(db: Knex, logger: Logger, publish: (...changes: Change[]) => Promise<void>): RequestHandler {
  return async (req: Request, res: Response, next) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return next();
    const target = targetOf(req.path);
    const send = res.json.bind(res);
    let answer!: (body: unknown) => void;
    const answered = new Promise<unknown>((resolve) => (answer = resolve));
    res.json = (body: unknown) => {
      answer(body);
      return res;
    };
    const scope: { changes: Change[] } = { changes: [] };
    try {
      const body = await db.transaction(async (trx) => {
        const before = await snapshot(trx, target);
        writeScope.run({ trx, changes: scope.changes }, () => next());
        const body = await answered;
        if (res.statusCode >= 300) throw new Refused(body);
        const after = await snapshot(trx, target);
        await appendAudit(trx, {
          ...actorOf(req.identity),
          clientAddress: clientAddress(req.headers['x-forwarded-for'], req.socket.remoteAddress),
          method: req.method,
          route: `${req.baseUrl}${target?.route ?? req.path}`,
          requestId: currentContext()?.requestId ?? null,
          action: `admin.${req.method.toLowerCase()}`,
          target: target ? `${target.table}:${Object.values(target.where).join('/')}` : req.path,
          before,
          after,
        });
        return body;
      });
      send(body);
      await publish(...scope.changes);
    } catch (err) {
      if (err instanceof Refused) {
        send(err.body);
        return;
      }
      // The write or its entry could not be committed: nothing of it stands.
      logger.error({ err, route: req.path }, 'an admin write and its audit entry could not be committed');
      if (!res.headersSent) {
        // (In the envelope of the admin API: this router sees paths without its /admin/v1 prefix.)
        const appErr = toAppError(err, logger);
        for (const [name, value] of Object.entries(appErr.headers)) res.setHeader(name, value);
        res.status(appErr.status);
        send({ statusCode: appErr.status, message: appErr.message, error: appErr.code, data: null });
      }
    }
  };
}

/** An error answer of the route: its transaction is rolled back and the answer sent as it was. */
class Refused extends Error {
  constructor(readonly body: unknown) {
    super('refused');
  }
}
