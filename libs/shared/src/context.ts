import { AsyncLocalStorage } from 'node:async_hooks';

/** Per-request facts that every log line and error body of that request carries. */
export interface RequestContext {
  requestId: string;
  groupId?: string;
  providerId?: string;
  route?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runWithContext<T>(ctx: RequestContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

export function currentContext(): RequestContext | undefined {
  return storage.getStore();
}
