import { Router } from 'express';
import { z } from 'zod';
import { badRequest, callerGroupId, handler, inSpan, tracer } from '@relay/shared';
import { notifyRoundEnded, type RoundEndedDeps } from '../domain/round-ended';

/** Game-generated ids never contain ':' (spec Limits). */
const roundId = z.string().min(1).max(200).regex(/^[^:]*$/, "must not contain ':'");
const providerId = z.string().min(1).max(200);

/** A bound on the fan-out of one call; far above any real round (the spec sets no maximum). */
export const MAX_PROVIDER_IDS = 1000;

export const roundEndedBody = z.object({
  roundId,
  providerIds: z.array(providerId).min(1).max(MAX_PROVIDER_IDS),
});

const routeTracer = tracer('notifier');

/** POST /api/round-ended (spec: Round-ended), a wallet-style route: {"ok": true} or {"error": CODE}. */
export function roundEndedRoutes(deps: RoundEndedDeps): Router {
  const router = Router();
  router.post(
    '/api/round-ended',
    handler(async (req, res) => {
      const body = parseBody(req.body);
      const groupId = callerGroupId(req);
      // A child of the request's server span (which continues the gateway's trace), so the jobs
      // and the casino calls join the same trace.
      await inSpan(routeTracer, 'round-ended', { 'relay.round_id': body.roundId, 'relay.casino_count': body.providerIds.length }, () =>
        notifyRoundEnded(deps, groupId, body),
      );
      res.json({ ok: true });
    }),
  );
  return router;
}

function parseBody(input: unknown): z.infer<typeof roundEndedBody> {
  const result = roundEndedBody.safeParse(input ?? {});
  if (!result.success) {
    throw badRequest('Request validation failed', result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })));
  }
  return result.data;
}
