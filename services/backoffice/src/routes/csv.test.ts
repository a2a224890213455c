import { parse as parseCsv } from 'csv-parse/sync';
import { CAST, csvWriter, filterLine } from './csv';

describe('When an export names its scope and filters', () => {
  it('then it is one comment line whatever the filter values hold', () => {
    const line = filterLine({ actorType: 'operator', actorId: 'x', role: 'finance', scope: { type: 'casino', providerId: 'cas-1' } }, {
      playerId: 'evil\r\nproviderId,transactionId\nforged',
      from: new Date('2026-03-01T00:00:00.000Z'),
      groupBy: ['day', 'currency'],
      status: undefined,
    });
    expect(line).toBe('# scope: casino cas-1; filters: playerId=evil%0D%0AproviderId%2CtransactionId%0Aforged, from=2026-03-01T00:00:00.000Z, groupBy=day+currency');
    expect(line).not.toMatch(/[\r\n]/);
  });

  it.each([',', ';'])('then no filter value starts a cell of its own where %j separates cells, so none runs as a formula', (delimiter) => {
    const caller = { actorType: 'operator' as const, actorId: 'x', role: 'finance' as const, scope: { type: 'casino' as const, providerId: 'cas;=1+1' } };
    const line = filterLine(caller, { playerId: 'p,=HYPERLINK("http://evil.example")', roundId: 'r;@SUM(A1)', reason: '"quoted",-2+3\t+4' });
    const [cells] = parseCsv(line, { delimiter, relax_quotes: true }) as string[][];
    // Each cell is the comment's start or one of our own separators' (a space, then a filter's name).
    for (const cell of cells) expect(cell).toMatch(/^(# scope: | [a-zA-Z]+[:=])/);
    expect(line).toContain('playerId=p%2C=HYPERLINK(%22http://evil.example%22)');
    expect(line).toContain('scope: casino cas%3B=1+1');
  });

  it('then an export without filters says so', () => {
    expect(filterLine({ actorType: 'admin-token', actorId: 'ADMIN_TOKEN', role: 'admin', scope: { type: 'platform' } }, {})).toBe('# scope: platform; filters: none');
  });
});

describe('When a value would run as a spreadsheet formula', () => {
  it.each(['=HYPERLINK("http://x")', '+1+1', '-2+3', '@SUM(A1)', '\tx'])('then %j is written as text', (value) => {
    expect(CAST.string(value)).toBe(`'${value}`);
  });

  it('then every export\'s writer (money exports and the audit trail alike) guards each text cell', async () => {
    let out = '';
    const writer = csvWriter(['actorId', 'target', 'n']);
    writer.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const done = new Promise((resolve) => writer.on('end', resolve));
    writer.write({ actorId: '=HYPERLINK("http://evil.example")', target: 'account:a', n: -5 });
    writer.end();
    await done;
    expect(parseCsv(out, { columns: true })).toEqual([{ actorId: `'=HYPERLINK("http://evil.example")`, target: 'account:a', n: '-5' }]);
  });

  it('then ordinary ids and times are left alone, and booleans read true/false', () => {
    expect(CAST.string('player-7')).toBe('player-7');
    expect(CAST.string('2026-03-01T00:00:00.000Z')).toBe('2026-03-01T00:00:00.000Z');
    expect([CAST.boolean(true), CAST.boolean(false)]).toEqual(['true', 'false']);
  });
});
