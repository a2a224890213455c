import { Router } from 'express';
import { callerGroupId, handler, sendEnvelope } from '@relay/shared';
import { readBalance } from '../domain/balance';
import { cashIn } from '../domain/cash-in';
import { cashOut } from '../domain/cash-out';
import { sessionAwards } from '../domain/free-rounds';
import type { MovementDeps } from '../domain/money-movement';
import { validateSession } from '../domain/validate-session';
import { balanceQuery, cashInBody, cashOutBody, parse, validateSessionQuery } from './schemas';

/** The wallet routes of the spec: validation, balance read, cash-out, cash-in and its retry; and a session's free-round awards. */
export function walletRoutes(deps: MovementDeps): Router {
  const router = Router();

  router.get(
    '/api/v1/sessions/:sessionId',
    handler(async (req, res) => {
      const query = parse(validateSessionQuery, req.query);
      const session = await validateSession(deps, callerGroupId(req), String(req.params.sessionId), query);
      sendEnvelope(res, 200, 'Session is valid', session);
    }),
  );

  router.get(
    '/api/v1/sessions/:sessionId/free-rounds',
    handler(async (req, res) => {
      sendEnvelope(res, 200, 'Free-round awards fetched successfully', await sessionAwards(deps, callerGroupId(req), String(req.params.sessionId)));
    }),
  );

  router.get(
    '/api/account',
    handler(async (req, res) => {
      const query = parse(balanceQuery, req.query);
      res.json(await readBalance(deps, callerGroupId(req), query.sessionId, query.currency));
    }),
  );

  router.post(
    '/api/balance/cash-out',
    handler(async (req, res) => {
      res.json(await cashOut(deps, callerGroupId(req), parse(cashOutBody, req.body)));
    }),
  );

  router.post(
    '/api/balance/cash-in',
    handler(async (req, res) => {
      res.json(await cashIn(deps, callerGroupId(req), parse(cashInBody, req.body), false));
    }),
  );

  router.post(
    '/api/balance/cash-in/retry',
    handler(async (req, res) => {
      res.json(await cashIn(deps, callerGroupId(req), parse(cashInBody, req.body), true));
    }),
  );

  return router;
}
