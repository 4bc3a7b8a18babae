import { describe, expect, it } from 'vitest';
import { rowsOfSchema, schemaOfRows } from './parameter-rows.js';

// A tool's arguments as rows and back: rows for the schemas they can say exactly, JSON for the rest.

describe('a tool’s arguments as rows', () => {
  it('reads a flat schema as rows and writes the same schema back', () => {
    const schema = {
      type: 'object',
      properties: {
        number: { type: 'string', description: 'The order number' },
        size: { type: 'string', enum: ['small', 'large'] },
        count: { type: 'integer', enum: [1, 2, 3] },
        gift: { type: 'boolean' },
      },
      required: ['number', 'count'],
    };
    const rows = rowsOfSchema(schema);
    expect(rows).toEqual([
      { name: 'number', type: 'string', description: 'The order number', required: true, values: '' },
      { name: 'size', type: 'string', description: '', required: false, values: 'small\nlarge' },
      { name: 'count', type: 'integer', description: '', required: true, values: '1\n2\n3' },
      { name: 'gift', type: 'boolean', description: '', required: false, values: '' },
    ]);
    expect(schemaOfRows(rows!)).toEqual({ schema, problems: {} });
  });

  it('gives no rows for a schema they would lose part of, so it is edited as JSON', () => {
    const lossy = [
      { type: 'object', properties: { address: { type: 'object', properties: { city: { type: 'string' } } } } },
      { type: 'object', properties: { items: { type: 'array', items: { type: 'string' } } } },
      { type: 'object', properties: { email: { type: 'string', format: 'email' } } },
      { type: 'object', properties: { n: { type: 'integer', minimum: 1 } } },
      { type: 'object', properties: {}, additionalProperties: false },
      { type: 'object', properties: { a: { type: 'boolean', enum: [true] } } },
      { type: 'object', properties: { a: { type: 'string' } }, required: ['b'] },
      { type: 'array' },
      'not a schema',
    ];
    for (const schema of lossy) expect(rowsOfSchema(schema), JSON.stringify(schema)).toBeNull();
    expect(rowsOfSchema({ type: 'object', properties: {} })).toEqual([]);
  });

  it('refuses a row without a name, a name given twice and a number list that is not numbers, at their row', () => {
    const row = { type: 'string', description: '', required: false, values: '' };
    const { schema, problems } = schemaOfRows([
      { ...row, name: 'a' },
      { ...row, name: '', description: 'orphan' },
      { ...row, name: 'a' },
      { ...row, name: 'n', type: 'integer', values: '1\n2.5' },
    ]);
    expect(problems).toEqual({
      'param.1.name': 'Give this argument a name, or clear the row.',
      'param.2.name': 'Another argument above has this name.',
      'param.3.values': '“2.5” is not a whole number.',
    });
    expect(schema).toEqual({ type: 'object', properties: { a: { type: 'string' }, n: { type: 'integer' } } });
  });

  it('leaves a yes-or-no argument’s values unread', () => {
    const { schema } = schemaOfRows([{ name: 'ok', type: 'boolean', description: '', required: true, values: 'yes' }]);
    expect(schema).toEqual({ type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] });
  });
});
