import { Router } from 'express';
import type { Runtime } from '@relay/shared';
import type { BackofficeDeps } from '../domain/deps';
import { moneySearchRoutes } from './money-search';

/** The money views of the back office (search, stories, reconciliation, flagged wins, reports), mounted by app.ts in one line. */
export function moneyRoutes(deps: BackofficeDeps, rt: Runtime): Router {
  void rt;
  return Router().use(moneySearchRoutes(deps));
}
