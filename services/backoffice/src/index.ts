import { listen, type Runtime, type RunningServer } from '@relay/shared';
import { createBackofficeApp } from './app';

export { createBackofficeApp, operatorSessions } from './app';
export { currentCode } from './domain/totp';

export async function startBackoffice(rt: Runtime, port: number): Promise<{ server: RunningServer }> {
  return { server: await listen(createBackofficeApp(rt), port, rt.config.SERVICE_HOST) };
}
