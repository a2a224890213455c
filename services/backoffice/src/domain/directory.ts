import * as directory from '../data/directory';
import { authorize, scopeFilter, type Caller } from './access';
import type { BackofficeDeps } from './deps';

/** A casino account sees its own casino, a studio account its own game provider, the platform all. */
export async function listCasinos(deps: BackofficeDeps, caller: Caller) {
  authorize(caller, 'directory:read');
  const rows = await scopeFilter(directory.casinosQuery(deps.db), caller.scope, { providerId: 'provider_id' });
  return rows.map((r: any) => ({ providerId: r.provider_id, name: r.name, status: r.status, createdAt: r.created_at }));
}

export async function listGameProviders(deps: BackofficeDeps, caller: Caller) {
  authorize(caller, 'directory:read');
  const rows = await scopeFilter(directory.gameProvidersQuery(deps.db), caller.scope, { groupId: 'group_id' });
  return rows.map((r: any) => ({ groupId: r.group_id, name: r.name, status: r.status, createdAt: r.created_at }));
}
