import { decodeCursor, encodeCursor, orderBy, sortColumn } from './search';

const id = '0b8e9f5e-2f7a-4c3e-9a59-1f0b1c2d3e4f';
const made = (key: unknown, by: unknown, order: unknown) => Buffer.from(JSON.stringify([key, id, by, order])).toString('base64url');

describe('When a search cursor travels to the client and back', () => {
  it('then it keeps the microseconds, every decimal, an empty key and the id', () => {
    const created = { key: '2026-03-01T10:11:12.123456Z', id, by: 'createdAt', order: 'desc' as const };
    expect(decodeCursor(encodeCursor(created), 'transactions', { by: 'createdAt', order: 'desc' })).toEqual(created);
    const amount = { key: '1234567.89', id, by: 'amount', order: 'asc' as const };
    expect(decodeCursor(encodeCursor(amount), 'transactions', { by: 'amount', order: 'asc' })).toEqual(amount);
    const unsettled = { key: null, id, by: 'settledAt', order: 'desc' as const };
    expect(decodeCursor(encodeCursor(unsettled), 'rounds', { by: 'settledAt', order: 'desc' })).toEqual(unsettled);
  });

  it.each([
    ['another order', made('2026-03-01T10:11:12.123456Z', 'createdAt', 'asc'), 'createdAt', 'desc'],
    ['another sort', made('2026-03-01T10:11:12.123456Z', 'createdAt', 'desc'), 'completedAt', 'desc'],
    ['a numeric key under a time sort', made('12.50', 'createdAt', 'desc'), 'createdAt', 'desc'],
    ['an empty key of a column that is never empty', made(null, 'amount', 'desc'), 'amount', 'desc'],
    ['a number in exponent form', made('1e5', 'amount', 'desc'), 'amount', 'desc'],
    ['a sort of the other table', made('12.50', 'betAmount', 'desc'), 'betAmount', 'desc'],
  ])('then a cursor made for %s is refused with 400', (_label, text, by, order) => {
    expect(() => decodeCursor(text, 'transactions', { by, order: order as 'asc' | 'desc' })).toThrow(expect.objectContaining({ status: 400, code: 'Bad Request' }));
  });

  it.each([
    ['not base64 JSON', 'not-a-cursor'],
    ['a cursor without microseconds', made('2026-03-01T10:11:12.123Z', 'createdAt', 'desc')],
    ['an id that is not a uuid', Buffer.from(JSON.stringify(['2026-03-01T10:11:12.123456Z', "x' or 1=1", 'createdAt', 'desc'])).toString('base64url')],
    ['a key that is SQL', made("1; drop table rounds", 'createdAt', 'desc')],
    // A day no calendar has, and an hour no day has: PostgreSQL would refuse them (a 500 before).
    ['a key on 30 February', made('2024-02-30T00:00:00.000000Z', 'createdAt', 'desc')],
    ['a key at 25 o\'clock', made('2024-02-03T25:00:00.000000Z', 'createdAt', 'desc')],
  ])('then %s is a 400, never a query', (_label, text) => {
    expect(() => decodeCursor(text, 'transactions', { by: 'createdAt', order: 'desc' })).toThrow(expect.objectContaining({ status: 400 }));
  });
});

describe('When a search is ordered', () => {
  it('then the id runs against the direction and empty values come last both ways', () => {
    expect(orderBy('transactions', sortColumn('transactions', 'createdAt'), 'desc')).toBe('"transactions"."created_at" DESC, "transactions"."id" ASC');
    expect(orderBy('rounds', sortColumn('rounds', 'settledAt'), 'asc')).toBe('"rounds"."settled_at" ASC NULLS LAST, "rounds"."id" DESC');
  });

  it('then a name that is not a sort of the table is a 400, never a column', () => {
    expect(() => sortColumn('transactions', 'settledAt')).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => sortColumn('rounds', 'constructor')).toThrow(expect.objectContaining({ status: 400 }));
  });
});
