import { z } from 'zod';
import { badRequest, pageMeta, type ListMeta } from '@relay/shared';
import { enumParam, gameIdParam, idParam, instantParam, integerParam } from './query';

/** Page size limits of the spec (Limits: limit default 20, maximum 100; page default 1). */
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
/** Far beyond any real page; only keeps OFFSET arithmetic exact. */
const MAX_PAGE = 1_000_000_000;

/** The shared query parameters of the reporting lists (spec, Reporting) with a route's sort fields. */
export function listParams<const S extends readonly [string, ...string[]]>(sortFields: S) {
  return {
    page: integerParam(1, MAX_PAGE).default(1),
    limit: integerParam(1, MAX_LIMIT).default(DEFAULT_LIMIT),
    from: instantParam('from').optional(),
    to: instantParam('to').optional(),
    sortBy: enumParam(sortFields).default(sortFields[0] as S[number]),
    sortOrder: enumParam(['asc', 'desc'] as const).default('desc'),
    gameId: gameIdParam.optional(),
    providerId: idParam.optional(),
    playerId: idParam.optional(),
    roundId: idParam.optional(),
    currency: idParam.optional(),
    cursor: z
      .string()
      .min(1, 'must not be empty')
      .max(512, 'must be at most 512 characters')
      .optional()
      .meta({
        description:
          'Keyset paging for walking a whole list: "start" for the first page, then the meta.nextCursor of the previous answer (same filters and sort) until it is null. Each page costs the same however deep the walk is; page must not be given with it.',
        examples: ['start'],
      }),
  };
}

/** Page numbers and cursors are two ways of paging: given together, one would be silently ignored. */
export function oneWayOfPaging(query: unknown, cursor: string | undefined): void {
  if (cursor !== undefined && (query as Record<string, unknown> | undefined)?.page !== undefined) {
    throw badRequest('Invalid query: page must not be given with cursor', [{ path: 'page', message: 'must not be given with cursor' }]);
  }
}

/** A range whose start is after its end is a mistake worth a 400, not an empty page. */
export function rangeInOrder(value: { from?: Date; to?: Date }, ctx: z.RefinementCtx): void {
  if (value.from && value.to && value.from.getTime() > value.to.getTime()) {
    ctx.addIssue({ code: 'custom', path: ['from'], message: 'must not be after to' });
  }
}

/**
 * Page meta exactly as before for page/limit; for a cursor walk the limit and the next cursor,
 * with the total on the first page (cursor=start) only.
 */
export function listMeta(result: { total?: number; nextCursor?: string | null }, page: number, limit: number): ListMeta {
  if (result.nextCursor === undefined) return pageMeta(result.total ?? 0, page, limit);
  return result.total === undefined ? { limit, nextCursor: result.nextCursor } : { total: result.total, limit, nextCursor: result.nextCursor };
}
