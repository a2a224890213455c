import { decodeCursor, encodeCursor, FIRST_PAGE } from './cursor';

const id = '0b8e9f5e-2f7a-4c3e-9a59-1f0b1c2d3e4f';
const created = { column: 'created_at', nullable: false, type: 'timestamp' } as const;
const settled = { column: 'settled_at', nullable: true, type: 'timestamp' } as const;
const amount = { column: 'amount', nullable: false, type: 'numeric' } as const;
const context = { sortBy: 'createdAt', sortOrder: 'desc' as const, filters: { providerId: 'cas-1', from: new Date('2026-03-01T00:00:00Z') } };

describe('When a reporting cursor travels to the client and back', () => {
  it('then it names the same position, whatever the order of the filters', () => {
    const cursor = encodeCursor({ key: '2026-03-01T10:11:12.123456Z', id }, context);
    const reordered = { ...context, filters: { from: new Date('2026-03-01T00:00:00Z'), gameId: undefined, providerId: 'cas-1' } };
    expect(decodeCursor(cursor, reordered, created)).toEqual({ key: '2026-03-01T10:11:12.123456Z', id });
  });

  it('then "start" is the first page', () => {
    expect(decodeCursor(FIRST_PAGE, context, created)).toBeNull();
  });

  it('then an empty sort value is accepted only for a nullable column', () => {
    const withNull = encodeCursor({ key: null, id }, { ...context, sortBy: 'settledAt' });
    expect(decodeCursor(withNull, { ...context, sortBy: 'settledAt' }, settled)).toEqual({ key: null, id });
    const forced = encodeCursor({ key: null, id }, context);
    expect(() => decodeCursor(forced, context, created)).toThrow(expect.objectContaining({ status: 400 }));
  });

  it.each([
    ['another sort order', { ...context, sortOrder: 'asc' as const }, created],
    ['another sort field', { ...context, sortBy: 'amount' }, amount],
    ['other filters', { ...context, filters: { providerId: 'cas-2', from: context.filters.from } }, created],
    ['a wider range', { ...context, filters: { providerId: 'cas-1' } }, created],
  ])('then it is refused with %s', (_, other, sort) => {
    const cursor = encodeCursor({ key: '2026-03-01T10:11:12.123456Z', id }, context);
    expect(() => decodeCursor(cursor, other, sort)).toThrow(expect.objectContaining({ status: 400, code: 'Bad Request' }));
  });

  it.each([
    ['not base64 JSON', 'not-a-cursor'],
    ['a key without microseconds', encodeCursor({ key: '2026-03-01T10:11:12.123Z', id }, context)],
    ['a key that is SQL', encodeCursor({ key: "1' OR '1'='1", id }, context)],
    ['an id that is not a uuid', encodeCursor({ key: '2026-03-01T10:11:12.123456Z', id: 'x' }, context)],
  ])('then %s is refused', (_, text) => {
    expect(() => decodeCursor(text, context, created)).toThrow(expect.objectContaining({ status: 400 }));
  });

  it('then a numeric key keeps every decimal and refuses anything else', () => {
    const ctx = { ...context, sortBy: 'amount' };
    expect(decodeCursor(encodeCursor({ key: '1234567.89', id }, ctx), ctx, amount)).toEqual({ key: '1234567.89', id });
    expect(() => decodeCursor(encodeCursor({ key: '1e5', id }, ctx), ctx, amount)).toThrow(expect.objectContaining({ status: 400 }));
  });
});
