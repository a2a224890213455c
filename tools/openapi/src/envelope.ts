import { z } from 'zod';

/** The `meta` of a paginated list. */
export const pageMeta = z
  .strictObject({ total: z.number().int(), page: z.number().int(), limit: z.number().int(), totalPages: z.number().int() })
  .meta({ id: 'PageMeta' });

/** The `meta` of a list walked with `cursor`: `nextCursor` is null after the last page. */
export const cursorMeta = z
  .strictObject({ total: z.number().int().optional(), limit: z.number().int(), nextCursor: z.string().nullable() })
  .meta({ id: 'CursorMeta', description: 'Answer to a request with `cursor`: pass `nextCursor` as the next `cursor` until it is null. `total` (exact) on the first page (`cursor=start`) only.' });

/** The success envelope of the `/api/v1/` and `/admin/v1/` routes. */
export function envelope(data: z.ZodType, paginated: boolean | 'cursor' = false, status = 200) {
  return z.strictObject({
    statusCode: z.literal(status),
    message: z.string(),
    data,
    ...(paginated === 'cursor' ? { meta: z.union([pageMeta, cursorMeta]) } : paginated ? { meta: pageMeta } : {}),
  });
}
