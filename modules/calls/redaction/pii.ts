import { createRequire } from 'node:module';

type Nlp = typeof import('compromise').default;
let compromise: Nlp | undefined;
/**
 * compromise's parser and lexicon take about 0.3 s to load, and most processes never redact a call: it is loaded the
 * first time a name is looked for (its CommonJS build, so that the masking functions stay synchronous).
 */
function nlp(text: string): ReturnType<Nlp> {
  compromise ??= createRequire(import.meta.url)('compromise') as Nlp;
  return compromise(text);
}

// Personal details found in what a call said, each replaced by a placeholder that names its kind (`[name]`, `[phone]`,
// `[email]`, `[card]`, `[address]`, `[number]`), for the `redacted` privacy mode. The text is what a recogniser or a
// model wrote, so numbers come as digits or as spoken digit words ("five five five one two three four"), and names in
// any case. The rules lean towards masking: a stored transcript with one masked word too many loses little, one with a
// card number left in it is a breach. What is never masked: short numbers (counts, times, prices, years, a house
// number on its own), dates, and words that only look like names at the start of a sentence.

export type PiiKind = 'name' | 'phone' | 'email' | 'card' | 'address' | 'number';

export interface PiiSpan {
  kind: PiiKind;
  /** UTF-16 offsets into the text, end exclusive. */
  start: number;
  end: number;
}

/** Where one kind beats another on the same words: the more specific finding wins. */
const PRIORITY: Record<PiiKind, number> = { email: 0, card: 1, address: 2, phone: 3, number: 4, name: 5 };

/** Digit runs shorter than this are counts, times, prices or years, not identifiers. */
const MIN_IDENTIFIER_DIGITS = 6;

const SPOKEN_DIGITS: Record<string, string> = {
  zero: '0',
  oh: '0',
  o: '0',
  one: '1',
  two: '2',
  three: '3',
  four: '4',
  five: '5',
  six: '6',
  seven: '7',
  eight: '8',
  nine: '9',
};

/** Written and spoken emails: `ada@example.com`, and "ada dot lovelace at example dot com". */
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;
const SPOKEN_EMAIL = /\b[A-Za-z0-9][A-Za-z0-9._-]*(?:\s+(?:dot|underscore|dash|hyphen)\s+[A-Za-z0-9]+)*\s+at\s+[A-Za-z0-9-]+(?:\s+dot\s+[A-Za-z]{2,})+\b/gi;

const STREET_SUFFIX =
  'street|st|road|rd|avenue|ave|boulevard|blvd|lane|ln|drive|dr|court|ct|way|place|pl|terrace|close|crescent|square|sq|highway|hwy|parkway|pkwy|circle|cir|row|mews|gardens|grove|hill|walk|trail|alley|plaza';
/** Number words a house number is said in: "forty two Wallaby Way". */
const NUMBER_WORD = [
  ...Object.keys(SPOKEN_DIGITS).filter((w) => w.length > 1),
  ...'ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand'.split(
    ' ',
  ),
].join('|');
/** Words a street's name never has: "2 tickets for the way" is not an address. */
const NOT_STREET_WORDS =
  'the|a|an|in|on|at|for|to|of|by|and|or|my|your|our|their|this|that|is|are|was|were|it|we|you|i|me|us|them|per|all|more|less|minutes|hours|days|weeks|tickets|people|times';
/** A house number (digits, or spoken digits), one to four words of street name, a street suffix, a flat or suite after it. */
const STREET = new RegExp(
  `\\b(?:\\d{1,6}[A-Za-z]?|(?:(?:${NUMBER_WORD})[\\s-]+){0,5}(?:${NUMBER_WORD}))\\s+(?:(?!(?:${NOT_STREET_WORDS})\\b)[A-Za-z][A-Za-z'-]*\\s+){1,4}?(?:${STREET_SUFFIX})\\b\\.?(?:,?\\s+(?:apt|apartment|suite|unit|flat|floor)\\.?\\s*#?\\s*[A-Za-z0-9-]+)?`,
  'gi',
);
/** UK postcodes (`NW1 6XE`), and US ZIP codes after a state (`IL 62704`) or when said to be one. */
const UK_POSTCODE = /\b[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}\b/gi;
const US_STATE_ZIP = /\b[A-Z]{2}\s+\d{5}(?:-\d{4})?\b/g;
const SAID_POSTCODE = /\b(?:zip|post|postal)\s*code\s+(?:is\s+)?([A-Za-z0-9][A-Za-z0-9 -]{2,9}[A-Za-z0-9])/gi;

/** "My name is X", "call me X": what follows is a name, whatever its case. */
const NAME_SAID = /\b(?:my\s+name\s+is|my\s+name's|name\s+is|call\s+me|it's\s+spelled)\s+([A-Za-z][A-Za-z'-]*(?:\s+[A-Za-z][A-Za-z'-]*){0,2})/gi;
/** "This is X", "I'm X", "speak to X": a name only when it is written as one. */
const NAME_INTRODUCED =
  /\b(?:[Tt]his\s+is|I\s+am|I'm|[Ii]t's|[Ss]peaking\s+to|[Ss]peak\s+to|[Aa]sk\s+for|[Tt]hanks|[Tt]hank\s+you|[Hh]ello|[Hh]i|for)\s*,?\s+((?:Mr|Mrs|Ms|Dr|Miss)\.?\s+)?([A-Z][a-z'-]+(?:\s+[A-Z][a-z'-]+){0,2})/g;

/** Words that end a name said after "my name is". */
const NAME_STOP = new Set([
  'and',
  'but',
  'or',
  'so',
  'i',
  'im',
  "i'm",
  'my',
  'from',
  'with',
  'at',
  'on',
  'in',
  'and',
  'please',
  'thanks',
  'thank',
  'the',
  'a',
  'an',
  'is',
  'was',
  'calling',
  'here',
  'speaking',
  'back',
  'tomorrow',
  'today',
  'tonight',
  'later',
  'now',
  'again',
  'when',
  'if',
  'anytime',
  'soon',
  'sometime',
  'phone',
  'number',
  'email',
  'address',
  'to',
  'about',
  'regarding',
  'also',
  'by',
  'that',
  'not',
  'just',
]);
/** Capitalised words after "this is" or "I'm" that are not names. */
const NOT_NAMES = new Set([
  'The',
  'A',
  'An',
  'It',
  'That',
  'This',
  'There',
  'Here',
  'Yes',
  'No',
  'Not',
  'Just',
  'Fine',
  'Good',
  'Great',
  'Okay',
  'Ok',
  'Sorry',
  'Sure',
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
  'Sunday',
  'January',
  'February',
  'March',
  'April',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
  'Today',
  'Tomorrow',
  'Tonight',
  'Customer',
  'Support',
  'Sales',
  'Billing',
  'I',
]);

/** The personal details in `text`, in order, none overlapping. */
export function findPii(text: string): PiiSpan[] {
  const found: PiiSpan[] = [];
  const add = (kind: PiiKind, start: number, end: number) => {
    if (end > start) found.push({ kind, start, end });
  };
  for (const m of text.matchAll(EMAIL)) add('email', m.index, m.index + m[0].length);
  for (const m of text.matchAll(SPOKEN_EMAIL)) add('email', m.index, m.index + m[0].length);
  for (const m of text.matchAll(STREET)) add('address', m.index, m.index + m[0].length);
  for (const m of text.matchAll(UK_POSTCODE)) if (/\d/.test(m[0]) && /[A-Za-z]{1,2}\d/.test(m[0])) add('address', m.index, m.index + m[0].length);
  for (const m of text.matchAll(US_STATE_ZIP)) add('address', m.index, m.index + m[0].length);
  for (const m of text.matchAll(SAID_POSTCODE)) {
    const code = m[1]!;
    if (/\d/.test(code)) add('address', m.index + m[0].length - code.length, m.index + m[0].length);
  }
  for (const run of digitRuns(text)) {
    const kind = digitRunKind(run);
    if (kind) add(kind, run.start, run.end);
  }
  for (const span of names(text)) add('name', span.start, span.end);
  return joinAddressParts(text, resolve(found));
}

/** The text with each personal detail replaced by its placeholder. */
export function maskPii(text: string): string {
  const spans = findPii(text);
  if (spans.length === 0) return text;
  let out = '';
  let at = 0;
  for (const span of spans) {
    out += text.slice(at, span.start) + `[${span.kind}]`;
    at = span.end;
  }
  return out + text.slice(at);
}

/** Whether the text holds a personal detail. */
export function hasPii(text: string): boolean {
  return findPii(text).length > 0;
}

interface DigitRun {
  start: number;
  end: number;
  digits: string;
  /** How the digits were grouped as written: `555-123-4567` is [3, 3, 4]. */
  groups: number[];
  spoken: boolean;
  plus: boolean;
  parens: boolean;
  dashes: boolean;
}

const TOKEN = /\+?\(?\d+\)?|[A-Za-z]+/g;

/**
 * Runs of digits, written or spoken, that belong together: tokens joined by spaces, dashes, dots, slashes or a comma
 * and space between spoken digits ("five, five, five"). "double five" is two fives.
 */
function digitRuns(text: string): DigitRun[] {
  const runs: DigitRun[] = [];
  let run: DigitRun | undefined;
  let pendingRepeat = 1;
  let lastEnd = -1;
  const close = () => {
    if (run && run.digits.length > 0) runs.push(run);
    run = undefined;
    pendingRepeat = 1;
  };
  for (const m of text.matchAll(TOKEN)) {
    const token = m[0];
    const start = m.index;
    const end = start + token.length;
    const between = lastEnd >= 0 ? text.slice(lastEnd, start) : '';
    const lower = token.toLowerCase();
    const isNumeral = /\d/.test(token);
    const isSpoken = !isNumeral && lower in SPOKEN_DIGITS && (lower.length > 1 || run !== undefined);
    const isRepeat = !isNumeral && (lower === 'double' || lower === 'triple');
    const joins = run !== undefined && /^(?:\s*[-./]?\s*|,\s*)$/.test(between) && !(between.includes(',') && !run.spoken && isNumeral);
    if (!(isNumeral || isSpoken || isRepeat) || (run && !joins)) {
      close();
      if (!(isNumeral || isSpoken || isRepeat)) {
        lastEnd = end;
        continue;
      }
    }
    if (isRepeat) {
      // "double" starts or continues a run only when a spoken or written digit follows it.
      const next = text.slice(end).match(/^\s+([A-Za-z]+|\d)/);
      const nextDigit = next && (/\d/.test(next[1]!) || next[1]!.toLowerCase() in SPOKEN_DIGITS);
      if (!nextDigit) {
        close();
        lastEnd = end;
        continue;
      }
      run ??= { start, end, digits: '', groups: [], spoken: true, plus: false, parens: false, dashes: false };
      pendingRepeat = lower === 'double' ? 2 : 3;
      run.end = end;
      lastEnd = end;
      continue;
    }
    const digits = isNumeral ? token.replace(/\D/g, '') : SPOKEN_DIGITS[lower]!;
    run ??= { start, end, digits: '', groups: [], spoken: false, plus: false, parens: false, dashes: false };
    if (run.digits.length === 0 && token.startsWith('+')) run.plus = true;
    if (token.includes('(')) run.parens = true;
    if (between.includes('-')) run.dashes = true;
    if (isSpoken) run.spoken = true;
    const repeated = digits.repeat(pendingRepeat);
    pendingRepeat = 1;
    run.digits += repeated;
    if (isNumeral) run.groups.push(repeated.length);
    run.end = end;
    lastEnd = end;
  }
  close();
  // An ISO date or a time is not an identifier.
  return runs.filter((r) => !/^\d{4}-\d{2}-\d{2}$|^\d{1,2}[/.]\d{1,2}[/.]\d{2,4}$/.test(text.slice(r.start, r.end)));
}

function digitRunKind(run: DigitRun): PiiKind | null {
  const n = run.digits.length;
  if (n < MIN_IDENTIFIER_DIGITS) return null;
  if (n >= 13 && n <= 19 && luhn(run.digits)) return 'card';
  // An SSN as written (123-45-6789) is an identifier, not a number to call.
  if (run.groups.join('-') === '3-2-4' && run.dashes) return 'number';
  const phoneLength = n >= 7 && n <= 15;
  if (phoneLength && (run.plus || run.parens || run.spoken)) return 'phone';
  if (phoneLength && run.groups.length >= 2 && run.groups.every((g) => g >= 2 && g <= 6)) return 'phone';
  if (n >= 10 && n <= 11 && run.groups.length === 1 && /^(?:0|1)?[2-9]/.test(run.digits)) return 'phone';
  return 'number';
}

/** The Luhn check every payment card number passes. */
export function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

function names(text: string): Array<{ start: number; end: number }> {
  const spans: Array<{ start: number; end: number }> = [];
  for (const m of text.matchAll(NAME_SAID)) {
    const words = m[1]!.split(/\s+/);
    const kept: string[] = [];
    for (const word of words) {
      if (NAME_STOP.has(word.toLowerCase())) break;
      kept.push(word);
    }
    if (kept.length === 0) continue;
    const start = m.index + m[0].length - m[1]!.length;
    spans.push({ start, end: start + kept.join(' ').length });
  }
  for (const m of text.matchAll(NAME_INTRODUCED)) {
    const words = m[2]!.split(/\s+/);
    const kept: string[] = [];
    for (const word of words) {
      if (NOT_NAMES.has(word)) break;
      kept.push(word);
    }
    if (kept.length === 0) continue;
    // "for Tuesday" or "for Support" stop above; "for" alone introduces a name only when the words are tagged as one.
    const name = kept.join(' ');
    if (/^for$/i.test(m[0].split(/\s+/)[0]!) && !m[1] && nlp(name).people().length === 0) continue;
    const start = m.index + m[0].length - m[2]!.length - (m[1]?.length ?? 0);
    spans.push({ start, end: start + (m[1]?.length ?? 0) + name.length });
  }
  const doc = nlp(text);
  for (const person of doc.people().out('offset') as Array<{ text: string; offset: { start: number; length: number } }>) {
    // The offsets count the punctuation after a name ("Ada." at the end of a sentence); the name ends at its last letter.
    const raw = text.slice(person.offset.start, person.offset.start + person.offset.length);
    const trimmed = raw.replace(/[^A-Za-z\u00C0-\u024F]+$/u, '');
    if (trimmed.length === 0) continue;
    spans.push({ start: person.offset.start, end: person.offset.start + trimmed.length });
  }
  return spans;
}

/**
 * The findings, none overlapping: where two overlap, the more specific kind wins and takes in the other's words (so a
 * name inside an email is part of the email); adjacent address parts ("221 Baker Street, London NW1 6XE") become one.
 */
function resolve(found: PiiSpan[]): PiiSpan[] {
  const ordered = [...found].sort((a, b) => PRIORITY[a.kind] - PRIORITY[b.kind] || a.start - b.start);
  const kept: PiiSpan[] = [];
  for (const span of ordered) {
    const overlapping = kept.filter((k) => k.start < span.end && span.start < k.end);
    if (overlapping.length === 0) {
      kept.push({ ...span });
      continue;
    }
    // The winner covers the loser's words too, so no part of a masked detail is left beside its placeholder.
    const winner = overlapping[0]!;
    winner.start = Math.min(winner.start, span.start);
    winner.end = Math.max(winner.end, span.end);
  }
  kept.sort((a, b) => a.start - b.start);
  const merged: PiiSpan[] = [];
  for (const span of kept) {
    const last = merged.at(-1);
    if (last && last.end >= span.start) {
      last.end = Math.max(last.end, span.end);
      continue;
    }
    merged.push(span);
  }
  return merged;
}

/** Joins address parts separated only by a town's name: the house, the street, the town and the postcode are one address. */
function joinAddressParts(text: string, spans: PiiSpan[]): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const span of spans) {
    const last = out.at(-1);
    if (last?.kind === 'address' && span.kind === 'address' && /^[,\s]*(?:[A-Z][A-Za-z'-]+[,\s]+){0,3}$/.test(text.slice(last.end, span.start))) {
      last.end = span.end;
      continue;
    }
    out.push({ ...span });
  }
  return out;
}
