import { listen, type Runtime, type RunningServer } from '@relay/shared';
import { createGatewayApp } from './app';

export { createGatewayApp } from './app';

export async function startGateway(rt: Runtime, port: number): Promise<{ server: RunningServer }> {
  return { server: await listen(createGatewayApp(rt), port, rt.config.GATEWAY_HOST) };
}
