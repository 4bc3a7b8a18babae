import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { normalizePhone, phoneDigitsOf } from '../../lib/phone.js';
import { sanitizeValue } from '../assistants/index.js';

// Finding a deleted contact's personal details in what was kept about its calls (transcripts, tool calls, opening
// lines, summaries, event payloads) and replacing each occurrence with a placeholder. The values are known: the
// contact's fields and custom fields, the call's variables, the numbers. A value is matched as it was stored and as
// the template renderer inserted it into speech and prompts (modules/assistants/templates.ts), in any case, as whole
// words; a phone number in its common spellings.

export const REMOVED = '[removed]';

/**
 * Values with fewer letters and digits than this are left: a whole-word, any-case match of an initial ("A"), of "Al" or
 * of a field holding "no" or "CA" would blank ordinary words all through a transcript. Three keeps names such as
 * "Ada" or "Tom" removable.
 */
export const MIN_VALUE_CHARS = 3;

/** Between the digits of a number as people write it: `+1 (415) 555-0166`, `415.555.0166`, `4155550166`. */
const SEPARATORS = String.raw`[\s\-.()/]*`;

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const meaningfulChars = (text: string) => (text.match(/[\p{L}\p{N}]/gu) ?? []).length;

export interface PersonalValues {
  /** Text values: names, email, ids, custom fields, variables. */
  texts: string[];
  /** Phone numbers, E.164 or as written; read in `region` when national. */
  phones: string[];
}

/** The text values in a field's value: strings and numbers, inside lists and objects too; booleans say nothing. */
export function valuesOf(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (typeof value === 'number' && Number.isFinite(value)) into.push(String(value));
  else if (Array.isArray(value)) for (const item of value) valuesOf(item, into);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) valuesOf(item, into);
  return into;
}

function phonePattern(phone: string, region: string): string | null {
  const e164 = normalizePhone(phone, region)?.e164;
  const parsed = e164 ? parsePhoneNumberFromString(e164) : undefined;
  const spaced = (digits: string) => digits.split('').join(SEPARATORS);
  if (!parsed) {
    // Not a number we can read: its own digits, however they are spaced.
    const digits = phone.replace(/\D/g, '');
    return digits.length >= 7 ? String.raw`(?<![\d+])\+?${spaced(digits)}(?!\d)` : null;
  }
  const national = parsed.nationalNumber;
  const nationalDigits = parsed.formatNational().replace(/\D/g, '');
  // The trunk prefix of national dialling (`0` in most of Europe, none in the US), when the national format has one.
  const trunk = nationalDigits.endsWith(national) ? nationalDigits.slice(0, nationalDigits.length - national.length) : '';
  const prefixes = [String.raw`(?:\+|00)?${parsed.countryCallingCode}`, ...(trunk ? [trunk] : [])];
  return String.raw`(?<![\d+])(?:(?:${prefixes.join('|')})${SEPARATORS})?\(?${spaced(national)}(?!\d)`;
}

function textPatterns(value: string): string[] {
  const forms = new Set([value.trim(), sanitizeValue(value)]);
  const patterns: string[] = [];
  for (const form of forms) {
    if (meaningfulChars(form) < MIN_VALUE_CHARS) continue;
    const body = form
      .split(/\s+/)
      .map(escapeRegex)
      .join(String.raw`\s+`);
    // Whole words: "Ada" goes, "Adam" and "Canada" stay.
    const start = /^[\p{L}\p{N}]/u.test(form) ? String.raw`(?<![\p{L}\p{N}])` : '';
    const end = /[\p{L}\p{N}]$/u.test(form) ? String.raw`(?![\p{L}\p{N}])` : '';
    patterns.push(`${start}${body}${end}`);
  }
  return patterns;
}

export type Scrubber = (text: string) => string;

/** A function that replaces every occurrence of the values with REMOVED; the identity when there is nothing to find. */
export function scrubberOf(values: PersonalValues, region: string): Scrubber {
  const weighted: Array<{ pattern: string; weight: number }> = [];
  for (const phone of values.phones) {
    const pattern = phonePattern(phone, region);
    if (pattern) weighted.push({ pattern, weight: phone.length });
  }
  for (const text of values.texts) {
    // A field that holds a phone number is found in its other spellings too.
    if (phoneDigitsOf(text) && normalizePhone(text, region)) {
      const pattern = phonePattern(text, region);
      if (pattern) weighted.push({ pattern, weight: text.length });
    }
    for (const pattern of textPatterns(text)) weighted.push({ pattern, weight: text.length });
  }
  if (weighted.length === 0) return (text) => text;
  // Longest values first: "Carol Smith" is one removal, not "[removed] Smith" when "Carol" is also a value.
  const sources = [...new Set(weighted.sort((a, b) => b.weight - a.weight).map((w) => w.pattern))];
  const matcher = new RegExp(sources.join('|'), 'giu');
  return (text) => text.replace(matcher, REMOVED);
}

/** The same value with every string in it scrubbed (object keys are field names and stay). */
export function scrubJson(value: unknown, scrub: Scrubber): unknown {
  if (typeof value === 'string') return scrub(value);
  if (Array.isArray(value)) return value.map((item) => scrubJson(item, scrub));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, scrubJson(item, scrub)]));
  return value;
}
