import { Router } from 'express';
import { z } from 'zod';
import { handler } from '@relay/shared';
import { callerOf } from '../domain/access';
import type { BackofficeDeps } from '../domain/deps';
import { walletHealth } from '../domain/walletHealth';
import { idParam } from './money-params';
import { parse } from './validation';

/** GET /money/wallet-health: each casino's wallet as the relay sees it, last hour and last day. */
export const walletHealthQuery = z.object({ providerId: idParam.optional() }).strict();

export function walletHealthRoutes(deps: BackofficeDeps): Router {
  return Router().get('/money/wallet-health', handler(async (req, res) => {
    const q = parse(walletHealthQuery, req.query);
    const rows = await walletHealth(deps, callerOf(req.identity), q.providerId);
    res.json({ statusCode: 200, message: 'Wallet health fetched successfully', data: rows });
  }));
}
