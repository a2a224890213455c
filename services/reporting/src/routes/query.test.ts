import { parseInstant } from './query';

describe('parseInstant', () => {
  it('When a timestamp has microseconds, then it is kept at millisecond precision, truncated', () => {
    expect(parseInstant('2026-11-21T20:47:56.123999Z', 'from')?.toISOString()).toBe('2026-11-21T20:47:56.123Z');
  });

  it('When a timestamp has an offset or no zone, then it is converted to UTC or read as UTC', () => {
    expect(parseInstant('2026-11-21T21:47:56.5+01:00', 'to')?.toISOString()).toBe('2026-11-21T20:47:56.500Z');
    expect(parseInstant('2026-11-21T20:47:56-0230', 'to')?.toISOString()).toBe('2026-11-21T23:17:56.000Z');
    expect(parseInstant('2026-11-21T20:47', 'from')?.toISOString()).toBe('2026-11-21T20:47:00.000Z');
  });

  it('When only a date is given, then from starts the UTC day and to ends it', () => {
    expect(parseInstant('2026-02-28', 'from')?.toISOString()).toBe('2026-02-28T00:00:00.000Z');
    expect(parseInstant('2026-02-28', 'to')?.toISOString()).toBe('2026-02-28T23:59:59.999Z');
  });

  it.each(['2026-02-29', '2026-13-01', '2026-11-21T24:00:00Z', '2026-11-21T20:60Z', 'yesterday', '', '1700000000', '2026-11-21T20:47:56+25:00'])(
    'When the value is %s, then it is refused',
    (text) => {
      expect(parseInstant(text, 'from')).toBeNull();
    },
  );
});
