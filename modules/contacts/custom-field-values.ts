import type { ValidationDetail } from '../../lib/errors.js';
import type { PropertyType } from './property-schemas.js';

// Coercion of custom field values to their property's type (spec behaviour 7). Values arrive as JSON from the API and
// as text from CSV imports and query strings, so text forms of every type are accepted; anything else is refused
// with a `loc` naming the key.

export interface PropertyDef {
  key: string;
  type: PropertyType;
  options: string[] | null;
}

/** The stored form: numbers and booleans as JSON, dates as `YYYY-MM-DD`, date-times as ISO 8601 UTC. */
export type FieldValue = string | number | boolean;

/** A text value is a note, not a document: 2,000 characters. */
export const MAX_TEXT_VALUE = 2000;

const NUMBER_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const TRUE_TEXT = new Set(['true', '1', 'yes']);
const FALSE_TEXT = new Set(['false', '0', 'no']);
const DATE_TEXT = /^(\d{4})-(\d{2})-(\d{2})$/;
// A date-time must say which instant it is: a time without an offset would be read differently on every server.
const DATETIME_TEXT = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)$/i;

type Coerced = { ok: true; value: FieldValue } | { ok: false; type: string; msg: string };

function isRealDate(text: string): boolean {
  const m = DATE_TEXT.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function quoted(values: readonly string[]): string {
  const parts = values.map((v) => `'${v}'`);
  return parts.length <= 1 ? parts.join('') : `${parts.slice(0, -1).join(', ')} or ${parts.at(-1)}`;
}

export function coerceValue(property: PropertyDef, raw: unknown): Coerced {
  const text = typeof raw === 'string' ? raw.trim() : null;
  switch (property.type) {
    case 'text':
      if (typeof raw === 'number' || typeof raw === 'boolean') return { ok: true, value: String(raw) };
      if (typeof raw !== 'string') return { ok: false, type: 'string_type', msg: 'Input should be a valid string' };
      if (raw.length > MAX_TEXT_VALUE) return { ok: false, type: 'string_too_long', msg: `String should have at most ${MAX_TEXT_VALUE} characters` };
      // Postgres refuses NUL inside JSON text.
      if (raw.includes('\u0000')) return { ok: false, type: 'string_pattern_mismatch', msg: 'String should not contain NUL characters' };
      return { ok: true, value: raw };
    case 'number': {
      if (typeof raw === 'number' && Number.isFinite(raw)) return { ok: true, value: raw };
      if (text !== null && NUMBER_TEXT.test(text) && Number.isFinite(Number(text))) return { ok: true, value: Number(text) };
      return { ok: false, type: 'float_parsing', msg: 'Input should be a valid number' };
    }
    case 'boolean': {
      if (typeof raw === 'boolean') return { ok: true, value: raw };
      if (raw === 1 || raw === 0) return { ok: true, value: raw === 1 };
      const lower = text?.toLowerCase();
      if (lower !== undefined && TRUE_TEXT.has(lower)) return { ok: true, value: true };
      if (lower !== undefined && FALSE_TEXT.has(lower)) return { ok: true, value: false };
      return { ok: false, type: 'bool_parsing', msg: 'Input should be a valid boolean' };
    }
    case 'date':
      if (text !== null && isRealDate(text)) return { ok: true, value: text };
      return { ok: false, type: 'date_parsing', msg: 'Input should be a valid date in the format YYYY-MM-DD' };
    case 'datetime': {
      if (text !== null && DATETIME_TEXT.test(text) && isRealDate(text.slice(0, 10))) {
        const instant = new Date(text.replace(' ', 'T'));
        if (!Number.isNaN(instant.getTime())) return { ok: true, value: instant.toISOString() };
      }
      return { ok: false, type: 'datetime_parsing', msg: 'Input should be a valid datetime in ISO 8601 with a time-zone offset' };
    }
    case 'select': {
      const options = property.options ?? [];
      if (text !== null && options.includes(text)) return { ok: true, value: text };
      return { ok: false, type: 'enum', msg: `Input should be ${quoted(options)}` };
    }
  }
}

export interface CoercedFields {
  /** Values to store; a null means "remove this key" (only when nulls are allowed). */
  values: Record<string, FieldValue | null>;
  errors: ValidationDetail[];
}

/**
 * Coerces every value of a `custom_fields` object. `loc` is where the object sits in the request, e.g.
 * `['body', 'custom_fields']`; each error's `loc` adds the key.
 */
export function coerceCustomFields(
  properties: ReadonlyMap<string, PropertyDef>,
  input: Record<string, unknown>,
  loc: (string | number)[],
  options: { allowNull: boolean },
): CoercedFields {
  const values: Record<string, FieldValue | null> = {};
  const errors: ValidationDetail[] = [];
  for (const [key, raw] of Object.entries(input)) {
    const property = properties.get(key);
    if (!property) {
      errors.push({ loc: [...loc, key], msg: 'No custom property has this key', type: 'extra_forbidden' });
      continue;
    }
    if (raw === null) {
      if (options.allowNull) values[key] = null;
      continue;
    }
    const result = coerceValue(property, raw);
    if (result.ok) values[key] = result.value;
    else errors.push({ loc: [...loc, key], msg: result.msg, type: result.type });
  }
  return { values, errors };
}
