import { z } from 'zod';
import { SORTS } from '../data/search';

/**
 * Query parameters shared by the money routes. Every value arrives as text; anything outside the
 * rules is a 400 naming the parameter (routes/validation.parse), never a database error.
 */
const INT4_MAX = 2147483647;

export const idParam = z.string().min(1).max(512).refine((s) => !s.includes('\u0000'), 'must not contain NUL characters');
export const gameIdParam = z.string().regex(/^-?\d{1,10}$/, 'must be an integer').transform(Number).pipe(z.number().int().min(-INT4_MAX - 1).max(INT4_MAX));
/** Money in a query string: at most 2 decimals, kept as exact text (never a float). */
export const amountParam = z.string().regex(/^\d{1,13}(\.\d{1,2})?$/, 'must be a non-negative amount with at most 2 decimals');
export const instantParam = z.string().datetime({ offset: true, message: 'must be an ISO-8601 instant' }).transform((s) => new Date(s));
export const dayParam = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a UTC day YYYY-MM-DD').refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)), 'must be a real day');
export const limitParam = z.string().regex(/^\d{1,4}$/, 'must be an integer').transform(Number).pipe(z.number().int().min(1).max(500)).default(100);
export const pageParam = z.string().regex(/^\d{1,9}$/, 'must be an integer').transform(Number).pipe(z.number().int().min(1)).default(1);

const common = {
  groupId: idParam.optional(),
  providerId: idParam.optional(),
  gameId: gameIdParam.optional(),
  playerId: idParam.optional(),
  roundId: idParam.optional(),
  sessionId: idParam.optional(),
  currency: idParam.optional(),
  transactionId: idParam.optional(),
  reason: idParam.optional(),
  amountMin: amountParam.optional(),
  amountMax: amountParam.optional(),
  from: instantParam.optional(),
  to: instantParam.optional(),
};

/** GET /money/transactions[.csv] */
export const transactionFilter = z.object({
  ...common,
  category: z.enum(['CASH_OUT', 'CASH_IN']).optional(),
  status: z.enum(['PENDING', 'SUCCESS', 'FAILED']).optional(),
}).strict();

/** GET /money/rounds[.csv] (amountMin/amountMax on the bet, reason on the settlement, transactionId the bet's). */
export const roundFilter = z.object({ ...common, status: z.enum(['OPEN', 'SETTLED']).optional() }).strict();

const sortOrderParam = z.enum(['asc', 'desc']);
const sortNames = <T extends object>(sorts: T) => Object.keys(sorts) as [keyof T & string, ...(keyof T & string)[]];
const transactionSortBy = z.enum(sortNames(SORTS.transactions));
const roundSortBy = z.enum(sortNames(SORTS.rounds));

export const searchPaging = z.object({ limit: limitParam, cursor: z.string().max(400).optional() });
/** The list's sort: `sortBy` one of the table's sorts (default the creation time), newest or largest first by default. */
export const transactionSort = z.object({ sortBy: transactionSortBy.default('createdAt'), sortOrder: sortOrderParam.default('desc') });
export const roundSort = z.object({ sortBy: roundSortBy.default('createdAt'), sortOrder: sortOrderParam.default('desc') });
/** The export's sort: the same names; without them, oldest first as before sorts existed. */
export const transactionExportSort = z.object({ sortBy: transactionSortBy.optional(), sortOrder: sortOrderParam.optional() });
export const roundExportSort = z.object({ sortBy: roundSortBy.optional(), sortOrder: sortOrderParam.optional() });
