import type { ValidationDetail } from './errors.js';

// Postgres cannot store two kinds of text that a request can carry: the NUL character (refused in text and jsonb
// alike) and a UTF-16 surrogate without its pair (JSON's "\ud800" escape: jsonb refuses it, and a text column would
// silently receive U+FFFD instead of what was sent). Either would surface as a database error, a 500, deep inside a
// service; refusing them for every request part, before validation, makes them a 422 on every endpoint at once.

/** One stable `type` for "text Postgres cannot store", the word contacts have always answered with. */
export const UNSTORABLE_TEXT_TYPE = 'string_pattern_mismatch';

/**
 * A file in the wrong encoding (UTF-16 read as UTF-8) has a NUL in every cell: 25,000 rows would be 250,000 entries.
 * 100 locate the problem; the rest add nothing but size.
 */
export const MAX_UNSTORABLE_REPORTED = 100;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** A quick screen: almost all text has neither a NUL nor any surrogate, and is passed by this one scan. */
const SUSPECT = /[\u0000\ud800-\udfff]/;

/** Why Postgres cannot store `text`, as a message about a value (`String`) or an object key (`Key`); undefined if it can. */
export function unstorableTextMessage(text: string, what: 'String' | 'Key' = 'String'): string | undefined {
  if (!SUSPECT.test(text)) return undefined;
  if (text.includes('\u0000')) return `${what} should not contain NUL characters`;
  if (LONE_SURROGATE.test(text)) return `${what} should not contain unpaired surrogate characters`;
  return undefined;
}

type Loc = (string | number)[];

const isUnstorable = (text: string) => SUSPECT.test(text) && unstorableTextMessage(text) !== undefined;

/**
 * Whether any string or object key inside `value` is text Postgres cannot store. The answer is almost always no, and
 * every request asks: this walks without building a location for anything (findUnstorableText says where, once this
 * has said yes).
 */
export function hasUnstorableText(value: unknown): boolean {
  if (typeof value === 'string') return isUnstorable(value);
  if (value === null || typeof value !== 'object') return false;
  const stack: object[] = [value];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const items: unknown[] = Array.isArray(node) ? node : Object.values(node);
    if (!Array.isArray(node)) for (const key of Object.keys(node)) if (isUnstorable(key)) return true;
    for (const item of items) {
      if (typeof item === 'string') {
        if (isUnstorable(item)) return true;
      } else if (item !== null && typeof item === 'object') stack.push(item);
    }
  }
  return false;
}

/** Where a node sits, as a chain to its parent: the `loc` array is built only for the rare node that is reported. */
interface Place {
  key: string | number;
  parent: Place | undefined;
}

function locOf(base: Loc, place: Place | undefined): Loc {
  const keys: (string | number)[] = [];
  for (let p = place; p !== undefined; p = p.parent) keys.push(p.key);
  return [...base, ...keys.reverse()];
}

/**
 * Every string and object key inside `value` that Postgres cannot store, in document order, each at its `loc` (a key
 * at the path it names). Iterative: parsed JSON is already depth-limited, and a walk without recursion cannot overflow
 * the stack whatever parser produced the value. A 25,000-row import body (6.8 MB) is walked in ~60 ms on a busy 2-core machine.
 */
export function findUnstorableText(value: unknown, loc: Loc, limit = MAX_UNSTORABLE_REPORTED): ValidationDetail[] {
  const found: ValidationDetail[] = [];
  const report = (place: Place | undefined, msg: string | undefined) => {
    if (msg && found.length < limit) found.push({ loc: locOf(loc, place), msg, type: UNSTORABLE_TEXT_TYPE });
  };
  // Keys are checked as their entry is reached, so that keys and values come out in the order they appear.
  const stack: [node: unknown, place: Place | undefined, isKey: boolean][] = [[value, undefined, false]];
  while (stack.length > 0 && found.length < limit) {
    const [node, place, isKey] = stack.pop()!;
    if (isKey) report(place, unstorableTextMessage(place!.key as string, 'Key'));
    if (typeof node === 'string') {
      report(place, unstorableTextMessage(node));
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push([node[i], { key: i, parent: place }, false]);
    } else {
      const keys = Object.keys(node);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        stack.push([(node as Record<string, unknown>)[key], { key, parent: place }, true]);
      }
    }
  }
  return found;
}
