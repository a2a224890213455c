import { amountOrNull, parseValue, toProperty, toRow } from './forms';

/** The provisioning forms' text-to-JSON rules, run by jest in Node. */
describe('provisioning form values', () => {
  it('When amounts are typed, then numbers go as JSON numbers, empty as null, and anything else as typed for the API to refuse', () => {
    expect([amountOrNull('0.10'), amountOrNull(' 100 '), amountOrNull(''), amountOrNull('1,000'), amountOrNull('abc')]).toEqual([0.1, 100, null, '1,000', 'abc']);
    expect(JSON.stringify({ maxWin: amountOrNull('ten') })).toBe('{"maxWin":"ten"}');
  });

  it('When a template row is sent, then dropdown values are split, numbers typed, and the default takes the property type', () => {
    const row = (over: Partial<ReturnType<typeof toRow>>) => ({ ...toRow({ name: 'x', type: 'STRING', required: false }), ...over });
    expect(toProperty(row({ name: ' theme ', type: 'DROPDOWN', values: 'dark, light, 3', default: '3' }))).toEqual({ name: 'theme', type: 'DROPDOWN', values: ['dark', 'light', 3], required: false, default: 3 });
    expect(toProperty(row({ type: 'NUMBER', default: '4', required: true }))).toEqual({ name: 'x', type: 'NUMBER', required: true, default: 4 });
    expect(toProperty(row({ type: 'NUMBER', default: 'many' }))).toEqual({ name: 'x', type: 'NUMBER', required: false, default: 'many' });
    expect(toProperty(row({ type: 'BOOLEAN', default: 'false' }))).toEqual({ name: 'x', type: 'BOOLEAN', required: false, default: false });
    expect(toProperty(row({ type: 'STRING', values: 'ignored', default: '' }))).toEqual({ name: 'x', type: 'STRING', required: false });
  });

  it('When a stored template is loaded into rows and sent back unchanged, then it is the same template', () => {
    const stored = [
      { name: 'theme', type: 'DROPDOWN' as const, values: ['dark', 'light'], required: true, default: 'dark' },
      { name: 'maxPlayers', type: 'NUMBER' as const, required: false, default: 6 },
      { name: 'sound', type: 'BOOLEAN' as const, required: false, default: true },
      { name: 'title', type: 'STRING' as const, required: false },
    ];
    expect(stored.map(toRow).map(toProperty)).toEqual(stored);
  });

  it('When a casino value is typed, then it takes its property type', () => {
    expect(parseValue({ name: 'n', type: 'NUMBER', required: false }, '6')).toBe(6);
    expect(parseValue({ name: 'b', type: 'BOOLEAN', required: false }, 'true')).toBe(true);
    expect(parseValue({ name: 'd', type: 'DROPDOWN', values: [1, 2], required: false }, '2')).toBe(2);
    expect(parseValue({ name: 's', type: 'STRING', required: false }, ' 7 ')).toBe(' 7 ');
  });
});
