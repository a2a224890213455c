import { Router } from 'express';
import { z } from 'zod';
import { badRequest, handler } from '@relay/shared';
import { launch, type LaunchDeps } from '../domain/launch';

/** PostgreSQL text cannot hold NUL, and no launch parameter has a use for control characters. */
const printable = (v: string) => ![...v].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
const text = (max: number) => z.string().trim().min(1).max(max).refine(printable, 'must not contain control characters');

export const launchQuery = z.object({
  token: z.string().min(1).max(8192),
  providerId: text(200).regex(/^[^:]+$/),
  gameId: z.string().regex(/^\d{1,10}$/).transform(Number).pipe(z.number().int().min(1).max(2147483647)),
  currency: text(16).regex(/^[A-Za-z0-9_-]+$/),
  language: text(35),
  backtoHome: z
    .string()
    .max(2048)
    .refine((v) => {
      try {
        return ['http:', 'https:'].includes(new URL(v).protocol);
      } catch {
        return false;
      }
    }, 'must be an absolute http(s) URL')
    .optional(),
});

/**
 * Every parameter is forwarded to the game, so every one must be read and checked: the query
 * parser stops at 1,000 keys, and a `backtoHome` placed after them would reach the game unchecked.
 * No launch needs more than a handful; beyond this bound the launch is refused.
 */
export const MAX_LAUNCH_PARAMETERS = 100;

export function launchRoutes(deps: LaunchDeps): Router {
  const router = Router();
  router.get(
    '/launch',
    handler(async (req, res) => {
      const rawQuery = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
      // Empty pieces too: the parser counts them towards its 1,000, and `&&&...` would push a
      // parameter past it as surely as fillers do.
      const pieces = rawQuery.split('&').length;
      if (pieces > MAX_LAUNCH_PARAMETERS) throw badRequest(`A launch takes at most ${MAX_LAUNCH_PARAMETERS} query parameters (this one has ${pieces})`);
      const parsed = launchQuery.safeParse(req.query);
      if (!parsed.success) {
        throw badRequest('Launch parameters are missing or malformed', parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })));
      }
      const location = await launch(deps, { ...parsed.data, rawQuery });
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(302, location);
    }),
  );
  return router;
}
