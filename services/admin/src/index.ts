import { listen, type Runtime, type RunningServer } from '@relay/shared';
import { createAdminApp } from './app';

export { createAdminApp } from './app';

export async function startAdmin(rt: Runtime, port: number): Promise<{ server: RunningServer }> {
  return { server: await listen(createAdminApp(rt), port, rt.config.SERVICE_HOST) };
}
