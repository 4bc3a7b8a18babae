import { MAX_COLLECTED_STRING_LENGTH, type CollectFieldIn } from './schemas.js';

// The values a playbook collects: the JSON Schema the model is offered for them, and the check and coercion of what it
// sends. A value the model sends in a near form ("4" for an integer, "Yes" for a boolean, "gold" for an enum value
// "Gold") is taken in its declared type; anything else is refused with a reason the model reads, so it can ask again.

export type CollectedValue = string | number | boolean;

export type Coerced = { ok: true; value: CollectedValue } | { ok: false; reason: string };

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;
const TRUE = new Set(['true', 'yes', 'y', '1']);
const FALSE = new Set(['false', 'no', 'n', '0']);

/** The JSON Schema of one value, as the model is offered it. */
export function valueSchema(field: CollectFieldIn): Record<string, unknown> {
  const describe = (what: string) => [field.description, what].filter(Boolean).join(' ');
  switch (field.type) {
    case 'string':
      return { type: 'string', description: describe('') };
    case 'number':
      return { type: 'number', description: describe('') };
    case 'integer':
      return { type: 'integer', description: describe('') };
    case 'boolean':
      return { type: 'boolean', description: describe('') };
    case 'date':
      return { type: 'string', description: describe('ISO 8601: YYYY-MM-DD, or YYYY-MM-DDTHH:MM with its offset (Z or +HH:MM).') };
    case 'enum':
      return { type: 'string', enum: field.values ?? [], description: describe('') };
  }
}

/** The arguments of the tool that saves values: every value optional, so each is saved as soon as the caller gives it. */
export function collectSchema(fields: CollectFieldIn[]): Record<string, unknown> {
  return { type: 'object', properties: Object.fromEntries(fields.map((f) => [f.name, valueSchema(f)])), additionalProperties: false };
}

/** The value in its declared type, or why it is not one. */
export function coerceValue(field: CollectFieldIn, raw: unknown): Coerced {
  const fail = (reason: string): Coerced => ({ ok: false, reason });
  const textOf = (v: unknown) => (typeof v === 'string' ? v.trim() : typeof v === 'number' || typeof v === 'boolean' ? String(v) : null);
  switch (field.type) {
    case 'string': {
      const text = textOf(raw);
      if (text === null || text === '') return fail('must be text');
      if (text.length > MAX_COLLECTED_STRING_LENGTH) return fail(`must be at most ${MAX_COLLECTED_STRING_LENGTH} characters`);
      return { ok: true, value: text };
    }
    case 'number':
    case 'integer': {
      const n =
        typeof raw === 'number'
          ? raw
          : typeof raw === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i.test(raw.replace(/,/g, ''))
            ? Number(raw.replace(/,/g, ''))
            : NaN;
      if (!Number.isFinite(n)) return fail(`must be a ${field.type === 'integer' ? 'whole number' : 'number'}`);
      if (field.type === 'integer' && !Number.isSafeInteger(n)) return fail('must be a whole number');
      return { ok: true, value: n };
    }
    case 'boolean': {
      if (typeof raw === 'boolean') return { ok: true, value: raw };
      const text = textOf(raw)?.toLowerCase() ?? '';
      if (TRUE.has(text)) return { ok: true, value: true };
      if (FALSE.has(text)) return { ok: true, value: false };
      return fail('must be true or false');
    }
    case 'date': {
      const text = typeof raw === 'string' ? raw.trim() : '';
      return isIsoDate(text) ? { ok: true, value: text } : fail('must be a date as YYYY-MM-DD, or a date-time as YYYY-MM-DDTHH:MM with its offset');
    }
    case 'enum': {
      const text = textOf(raw);
      const values = field.values ?? [];
      const match = text === null ? undefined : (values.find((v) => v === text) ?? values.find((v) => v.toLowerCase() === text.toLowerCase()));
      return match === undefined ? fail(`must be one of: ${values.join(', ')}`) : { ok: true, value: match };
    }
  }
}

/** A real calendar date (no 31 February), alone or with a time and an offset. */
function isIsoDate(text: string): boolean {
  const m = DATE.exec(text) ?? DATE_TIME.exec(text);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return false;
  if (m[4] === undefined) return true;
  const [hour, minute, second] = [Number(m[4]), Number(m[5]), Number(m[6] ?? 0)];
  return hour < 24 && minute < 60 && second < 60;
}
