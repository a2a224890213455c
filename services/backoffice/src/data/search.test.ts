import { decodeCursor, encodeCursor } from './search';

describe('When a search cursor travels to the client and back', () => {
  it('then it keeps the microseconds and the id', () => {
    const cursor = { at: '2026-03-01T10:11:12.123456Z', id: '0b8e9f5e-2f7a-4c3e-9a59-1f0b1c2d3e4f', order: 'desc' as const };
    expect(decodeCursor(encodeCursor(cursor), 'desc')).toEqual(cursor);
  });

  it('then a cursor made for one order is refused in the other', () => {
    const cursor = encodeCursor({ at: '2026-03-01T10:11:12.123456Z', id: '0b8e9f5e-2f7a-4c3e-9a59-1f0b1c2d3e4f', order: 'asc' });
    expect(() => decodeCursor(cursor, 'desc')).toThrow(expect.objectContaining({ status: 400 }));
  });

  it.each([
    ['not base64 JSON', 'not-a-cursor'],
    ['a cursor without microseconds', Buffer.from(JSON.stringify(['2026-03-01T10:11:12.123Z', '0b8e9f5e-2f7a-4c3e-9a59-1f0b1c2d3e4f', 'desc'])).toString('base64url')],
    ['an id that is not a uuid', Buffer.from(JSON.stringify(['2026-03-01T10:11:12.123456Z', "x' or 1=1", 'desc'])).toString('base64url')],
  ])('then %s is a 400, never a query', (_label, text) => {
    expect(() => decodeCursor(text, 'desc')).toThrow(expect.objectContaining({ status: 400 }));
  });
});
