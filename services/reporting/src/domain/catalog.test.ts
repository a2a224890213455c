import { resolveGameConfig } from './catalog';

describe('resolveGameConfig', () => {
  const template = [
    { name: 'theme', type: 'DROPDOWN', values: ['dark', 'light'], required: true, default: 'dark' },
    { name: 'rounds', type: 'NUMBER', required: false, default: 0 },
    { name: 'label', type: 'STRING', required: false },
    { name: 'sound', type: 'BOOLEAN', required: false, default: true },
  ];

  it('When the game has no template, then there is no gameConfig', () => {
    expect(resolveGameConfig(undefined, { theme: 'light' })).toBeNull();
  });

  it('When the casino overrides some properties, then values are complete and overrides name exactly those', () => {
    expect(resolveGameConfig(template, { label: 'VIP', theme: 'light', sound: false })).toEqual({
      values: { theme: 'light', rounds: 0, label: 'VIP', sound: false },
      overrides: ['theme', 'label', 'sound'],
    });
  });

  it('When the casino set nothing, then values are the defaults and a property without default is null', () => {
    expect(resolveGameConfig(template, {})).toEqual({ values: { theme: 'dark', rounds: 0, label: null, sound: true }, overrides: [] });
  });

  it('When an override names a property the template no longer has, then it is not shown', () => {
    expect(resolveGameConfig(template.slice(0, 1), { gone: 1 })).toEqual({ values: { theme: 'dark' }, overrides: [] });
  });

  it('When a property is named __proto__, then it is an own key and the prototype is untouched', () => {
    const config = resolveGameConfig([{ name: '__proto__', type: 'STRING', required: false, default: 'x' }], {});
    expect(Object.getPrototypeOf(config!.values)).toBe(Object.prototype);
    expect(JSON.stringify(config!.values)).toBe('{"__proto__":"x"}');
  });
});
