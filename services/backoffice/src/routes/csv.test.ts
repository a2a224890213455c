import { CAST, filterLine } from './csv';

describe('When an export names its scope and filters', () => {
  it('then it is one comment line whatever the filter values hold', () => {
    const line = filterLine({ actorType: 'operator', actorId: 'x', role: 'finance', scope: { type: 'casino', providerId: 'cas-1' } }, {
      playerId: 'evil\r\nproviderId,transactionId\nforged',
      from: new Date('2026-03-01T00:00:00.000Z'),
      groupBy: ['day', 'currency'],
      status: undefined,
    });
    expect(line).toBe('# scope: casino cas-1; filters: playerId=evil providerId,transactionId forged, from=2026-03-01T00:00:00.000Z, groupBy=day+currency');
    expect(line).not.toMatch(/[\r\n]/);
  });

  it('then an export without filters says so', () => {
    expect(filterLine({ actorType: 'admin-token', actorId: 'ADMIN_TOKEN', role: 'admin', scope: { type: 'platform' } }, {})).toBe('# scope: platform; filters: none');
  });
});

describe('When a value would run as a spreadsheet formula', () => {
  it.each(['=HYPERLINK("http://x")', '+1+1', '-2+3', '@SUM(A1)', '\tx'])('then %j is written as text', (value) => {
    expect(CAST.string(value)).toBe(`'${value}`);
  });

  it('then ordinary ids and times are left alone, and booleans read true/false', () => {
    expect(CAST.string('player-7')).toBe('player-7');
    expect(CAST.string('2026-03-01T00:00:00.000Z')).toBe('2026-03-01T00:00:00.000Z');
    expect([CAST.boolean(true), CAST.boolean(false)]).toEqual(['true', 'false']);
  });
});
