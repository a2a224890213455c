import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';

const finishing = new AsyncLocalStorage<true>();

/**
 * Runs `fn` outside its tenant's cap: for writes that finish work already admitted (recording what
 * a casino answered), which must never queue behind the same tenant's new claims. They are bounded
 * by the claims that were admitted under the cap, one each.
 */
export function finishingWork<T>(fn: () => Promise<T>): Promise<T> {
  return finishing.run(true, fn);
}

/**
 * Caps how many connections of one pool a single tenant holds at once, so one game provider's
 * burst or slow statements leave connections to the others. The tenant is read from the request's
 * context when a connection (or a transaction) is acquired; work outside a request is not capped.
 * Beyond its share a tenant waits for one of its own connections, never for another tenant's;
 * a wait longer than `timeoutMs` (5 s; then the pool's own acquire time-out still applies) fails
 * like a full pool (a 503 to the caller, who repeats the identical request).
 */
export function sharePoolByTenant(db: Knex, maxPerTenant: number, tenantOf: () => string | undefined, timeoutMs = 5_000): void {
  const client = db.client as { acquireConnection(): Promise<object>; releaseConnection(connection: object): Promise<void> };
  const acquire = client.acquireConnection.bind(client);
  const release = client.releaseConnection.bind(client);
  const held = new Map<string, number>();
  const waiting = new Map<string, (() => void)[]>();
  const owners = new WeakMap<object, string>();

  const permit = (tenant: string): Promise<void> => {
    const count = held.get(tenant) ?? 0;
    if (count < maxPerTenant) {
      held.set(tenant, count + 1);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const queue = waiting.get(tenant) ?? [];
      waiting.set(tenant, queue);
      const grant = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        queue.splice(queue.indexOf(grant), 1);
        if (queue.length === 0) waiting.delete(tenant);
        reject(Object.assign(new Error('Timeout acquiring a connection: this tenant holds its whole share of the pool'), { name: 'KnexTimeoutError' }));
      }, timeoutMs);
      queue.push(grant);
    });
  };

  const free = (tenant: string) => {
    const queue = waiting.get(tenant);
    const next = queue?.shift();
    if (queue && queue.length === 0) waiting.delete(tenant);
    if (next) return next(); // the permit passes to the tenant's next waiter
    const count = (held.get(tenant) ?? 1) - 1;
    if (count <= 0) held.delete(tenant);
    else held.set(tenant, count);
  };

  client.acquireConnection = async () => {
    const tenant = finishing.getStore() ? undefined : tenantOf();
    if (tenant === undefined) return acquire();
    await permit(tenant);
    try {
      const connection = await acquire();
      owners.set(connection, tenant);
      return connection;
    } catch (err) {
      free(tenant);
      throw err;
    }
  };
  client.releaseConnection = (connection) => {
    const tenant = owners.get(connection);
    if (tenant !== undefined) {
      owners.delete(connection);
      free(tenant);
    }
    return release(connection);
  };
}
