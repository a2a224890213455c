import { configProblems, effectiveValues, templateChangeProblems, templateProblems, type TemplateProperty } from './gameConfigRules';

const theme: TemplateProperty = { name: 'theme', type: 'DROPDOWN', values: ['dark', 'light', 3], required: false, default: 'dark' };
const lobby: TemplateProperty = { name: 'lobby', type: 'STRING', required: true };
const speed: TemplateProperty = { name: 'speed', type: 'NUMBER', required: true, default: 1 };

describe('templateProblems', () => {
  test('When a template follows the rules, then it has no problems', () => {
    expect(templateProblems([theme, lobby, speed, { name: 'chat', type: 'BOOLEAN', required: false, default: false }])).toEqual([]);
  });

  test.each(['providerId', 'gameId', '_id', '__v', 'id', 'createdAt', 'updatedAt', '__proto__'])('When a property is named %s, then it is refused', (name) => {
    expect(templateProblems([{ name, type: 'STRING', required: false }])).toEqual([{ path: 'properties.0.name', message: expect.stringContaining('reserved') }]);
  });

  test('When a dropdown repeats a value, then it is refused', () => {
    expect(templateProblems([{ ...theme, values: ['a', 'a'], default: 'a' }])).toHaveLength(1);
  });
});

describe('configProblems', () => {
  test('When a dropdown value is a number in the allowed values, then it is accepted; its string form is not', () => {
    expect(configProblems([theme], { theme: 3 })).toEqual([]);
    expect(configProblems([theme], { theme: '3' })).toHaveLength(1);
  });

  test('When a required property has a default, then the casino need not answer it', () => {
    expect(configProblems([speed], {})).toEqual([]);
    expect(configProblems([lobby], {})).toEqual([{ path: 'values.lobby', message: expect.stringContaining('required') }]);
  });

  test('When a NUMBER receives a boolean, then it is refused', () => {
    expect(configProblems([speed], { speed: true })).toHaveLength(1);
  });
});

describe('effectiveValues', () => {
  test('When a property has neither an override nor a default, then it is absent from the values', () => {
    expect(effectiveValues([theme, speed, { name: 'chat', type: 'BOOLEAN', required: false }], { speed: 2 })).toEqual({ theme: 'dark', speed: 2 });
  });
});

describe('templateChangeProblems', () => {
  test('When an overridden property is removed, then nothing breaks', () => {
    expect(templateChangeProblems([theme, speed], [speed], { theme: 'light' })).toEqual([]);
  });

  test('When a property type changes under a value that still fits, then it still breaks', () => {
    expect(templateChangeProblems([theme], [{ name: 'theme', type: 'STRING', required: false }], { theme: 'light' })).toEqual([
      { path: 'values.theme', message: expect.stringContaining('DROPDOWN to STRING') },
    ]);
  });

  test('When a property type changes that the casino did not override, then nothing breaks', () => {
    expect(templateChangeProblems([theme, speed], [theme, { ...speed, type: 'STRING', default: 'fast' }], { theme: 'light' })).toEqual([]);
  });
});
