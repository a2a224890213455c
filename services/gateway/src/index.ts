import { listen, type Runtime, type RunningServer } from '@relay/shared';
import { createGatewayApp } from './app';

export { createGatewayApp } from './app';
// The edge's body handling, for the money bench's stand-in gateway to do what the gateway does.
export { bufferedBodyPlugin, readBody } from './edge/body';

export async function startGateway(rt: Runtime, port: number): Promise<{ server: RunningServer }> {
  const { GATEWAY_HEADERS_TIMEOUT_MS: headers, GATEWAY_BODY_TIMEOUT_MS: body } = rt.config;
  // The edge answers a slow client itself (408 from the body deadline); Node's own request time-out
  // only backs it up, a second later.
  return { server: await listen(createGatewayApp(rt), port, rt.config.GATEWAY_HOST, { headersTimeoutMs: headers, requestTimeoutMs: headers + body + 1000 }) };
}
