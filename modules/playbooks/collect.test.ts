import { describe, expect, it } from 'vitest';
import { coerceValue, collectSchema } from './collect.js';
import type { CollectFieldIn } from './schemas.js';

const field = (type: CollectFieldIn['type'], values: string[] | null = null): CollectFieldIn => ({ name: 'v', type, description: '', required: false, values });

describe('collected values', () => {
  it.for<[CollectFieldIn['type'], unknown, unknown]>([
    ['string', '  Ada Lovelace ', 'Ada Lovelace'],
    ['string', 42, '42'],
    ['number', 2.5, 2.5],
    ['number', '1,250.75', 1250.75],
    ['integer', '4', 4],
    ['integer', 4, 4],
    ['boolean', true, true],
    ['boolean', 'Yes', true],
    ['boolean', 'no', false],
    ['date', '2026-12-01', '2026-12-01'],
    ['date', '2026-12-01T09:30+01:00', '2026-12-01T09:30+01:00'],
    ['date', '2024-02-29', '2024-02-29'],
  ])('takes a %s from %j as %j', ([type, raw, value]) => {
    expect(coerceValue(field(type), raw)).toEqual({ ok: true, value });
  });

  it('takes an enum value whatever its case, as declared', () => {
    expect(coerceValue(field('enum', ['Gold', 'Silver']), 'gold')).toEqual({ ok: true, value: 'Gold' });
  });

  it.for<[CollectFieldIn['type'], unknown, string]>([
    ['string', '   ', 'must be text'],
    ['string', { a: 1 }, 'must be text'],
    ['number', 'about five', 'must be a number'],
    ['integer', 2.5, 'must be a whole number'],
    ['integer', '2.5', 'must be a whole number'],
    ['boolean', 'maybe', 'must be true or false'],
    ['date', 'next Friday', 'must be a date'],
    ['date', '2026-02-30', 'must be a date'],
    ['date', '2026-12-01T09:30', 'must be a date'],
    ['date', '2026-12-01T25:00Z', 'must be a date'],
  ])('refuses a %s from %j with a reason the model reads', ([type, raw, reason]) => {
    const result = coerceValue(field(type), raw);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.reason).toContain(reason);
  });

  it('refuses an enum value that is not declared, naming the ones that are', () => {
    expect(coerceValue(field('enum', ['Gold', 'Silver']), 'bronze')).toEqual({ ok: false, reason: 'must be one of: Gold, Silver' });
  });

  it('offers every value as an optional typed property', () => {
    const schema = collectSchema([
      { name: 'day', type: 'date', description: 'The day', required: true, values: null },
      { name: 'tier', type: 'enum', description: '', required: false, values: ['Gold'] },
      { name: 'guests', type: 'integer', description: '', required: false, values: null },
    ]);
    expect(schema).toMatchObject({
      type: 'object',
      additionalProperties: false,
      properties: { day: { type: 'string' }, tier: { type: 'string', enum: ['Gold'] }, guests: { type: 'integer' } },
    });
    expect(schema).not.toHaveProperty('required');
    expect((schema.properties as Record<string, { description: string }>).day!.description).toContain('The day');
  });
});
