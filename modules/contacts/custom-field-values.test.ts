import { describe, expect, it } from 'vitest';
import { coerceCustomFields, coerceValue, type PropertyDef } from './custom-field-values.js';

const prop = (type: PropertyDef['type'], options: string[] | null = null): PropertyDef => ({ key: 'k', type, options });
const ok = (type: PropertyDef['type'], raw: unknown, options: string[] | null = null) => {
  const result = coerceValue(prop(type, options), raw);
  return result.ok ? result.value : `error:${result.type}`;
};

describe('coerceValue', () => {
  it('reads numbers from JSON numbers and numeric text only', () => {
    expect(ok('number', 42)).toBe(42);
    expect(ok('number', ' 42 ')).toBe(42);
    expect(ok('number', '-1.5e3')).toBe(-1500);
    expect(ok('number', '.5')).toBe(0.5);
    for (const bad of ['', '0x10', '1,000', 'Infinity', '1e999', true, null, {}]) expect(ok('number', bad)).toBe('error:float_parsing');
  });

  it('reads booleans from true/false, 1/0 and yes/no in any case', () => {
    expect(['true', 'TRUE', '1', 'yes', 1, true].map((v) => ok('boolean', v))).toEqual([true, true, true, true, true, true]);
    expect(['false', 'No', '0', 0, false].map((v) => ok('boolean', v))).toEqual([false, false, false, false, false]);
    expect(ok('boolean', 'maybe')).toBe('error:bool_parsing');
    expect(ok('boolean', 2)).toBe('error:bool_parsing');
  });

  it('keeps real calendar dates and refuses everything else', () => {
    expect(ok('date', '2026-01-05')).toBe('2026-01-05');
    expect(ok('date', '2024-02-29')).toBe('2024-02-29');
    for (const bad of ['2026-02-29', '2026-13-01', '05/01/2026', 'tomorrow', '2026-01-05T00:00:00Z', 20260105]) {
      expect(ok('date', bad)).toBe('error:date_parsing');
    }
  });

  it('stores date-times as UTC and needs an offset', () => {
    expect(ok('datetime', '2026-01-05T10:30:00+02:00')).toBe('2026-01-05T08:30:00.000Z');
    expect(ok('datetime', '2026-01-05 10:30Z')).toBe('2026-01-05T10:30:00.000Z');
    for (const bad of ['2026-01-05T10:30:00', '2026-01-05', 'noon', '2026-02-30T10:00:00Z']) expect(ok('datetime', bad)).toBe('error:datetime_parsing');
  });

  it('accepts only listed select options, exactly', () => {
    expect(ok('select', 'pro', ['free', 'pro'])).toBe('pro');
    expect(ok('select', 'Pro', ['free', 'pro'])).toBe('error:enum');
  });

  it('turns scalars into text and bounds its length', () => {
    expect(ok('text', 7)).toBe('7');
    expect(ok('text', false)).toBe('false');
    expect(ok('text', ['a'])).toBe('error:string_type');
    expect(ok('text', 'x'.repeat(2001))).toBe('error:string_too_long');
  });
});

describe('coerceCustomFields', () => {
  const properties = new Map([['age', { key: 'age', type: 'number' as const, options: null }]]);

  it('reports unknown keys and bad values at their key, and keeps nulls only where they mean removal', () => {
    expect(coerceCustomFields(properties, { age: '5', x: 1 }, ['body', 'custom_fields'], { allowNull: false })).toEqual({
      values: { age: 5 },
      errors: [{ loc: ['body', 'custom_fields', 'x'], msg: 'No custom property has this key', type: 'extra_forbidden' }],
    });
    expect(coerceCustomFields(properties, { age: null }, [], { allowNull: true }).values).toEqual({ age: null });
    expect(coerceCustomFields(properties, { age: null }, [], { allowNull: false }).values).toEqual({});
  });
});
