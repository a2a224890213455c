import type { Response } from 'express';

/**
 * The envelope of a list walked by cursor (or paged with exact totals): `meta` carries what the
 * shared PageMeta cannot say, the next cursor and the totals of everything the filters match.
 */
export function sendKeysetList(res: Response, message: string, data: unknown[], meta: Record<string, unknown>): void {
  res.status(200).json({ statusCode: 200, message, data, meta });
}
