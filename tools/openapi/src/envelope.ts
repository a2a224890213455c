import { z } from 'zod';

/** The `meta` of a paginated list. */
export const pageMeta = z
  .strictObject({ total: z.number().int(), page: z.number().int(), limit: z.number().int(), totalPages: z.number().int() })
  .meta({ id: 'PageMeta' });

/** The success envelope of the `/api/v1/` and `/admin/v1/` routes. */
export function envelope(data: z.ZodType, paginated = false, status = 200) {
  return z.strictObject({
    statusCode: z.literal(status),
    message: z.string(),
    data,
    ...(paginated ? { meta: pageMeta } : {}),
  });
}
