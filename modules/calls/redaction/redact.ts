import type { StoredTurn } from '../store.js';
import { findPii, maskPii, type PiiKind } from './pii.js';

// What the `redacted` privacy mode stores of a call: every text the call said or derived from what was said, with its
// personal details masked (pii.ts). Values are masked by what they hold, and by what they are called: a value named
// `email`, `phone`, `first_name` or `address` is masked whole whatever it holds, since a name given in lower case, or a
// bare number, may not look like one.

/** Value names that say what a value is, and the placeholder it takes. */
const NAMED_KINDS: Array<[RegExp, PiiKind]> = [
  [/e-?mail/i, 'email'],
  [/phone|mobile|telephone|fax|msisdn|caller_?id/i, 'phone'],
  [/card_?(?:no|number|num)|credit_?card|debit_?card|^pan$|cvv|cvc/i, 'card'],
  [/address|street|post_?code|postal_?code|^zip(?:_?code)?$/i, 'address'],
  [/ssn|social_?security|national_?id|passport|licen[cs]e_?(?:no|number)|account_?(?:no|number|num)|iban|routing|sort_?code|tax_?id/i, 'number'],
  [/(?:^|_)(?:first_?|last_?|full_?|given_?|family_?|sur|middle_?|caller_?|customer_?|contact_?|patient_?)?name$/i, 'name'],
];

/** What a value's name says it holds, if anything. */
export function kindOfName(name: string): PiiKind | undefined {
  return NAMED_KINDS.find(([pattern]) => pattern.test(name))?.[1];
}

/**
 * A value with every personal detail in it masked: strings masked, objects and arrays walked, a value whose name says
 * what it is replaced by that placeholder. Numbers of identifier length become `[number]`; booleans and short numbers
 * stay.
 */
export function redactValue(value: unknown, name?: string): unknown {
  const named = name === undefined ? undefined : kindOfName(name);
  if (value === null || value === undefined || typeof value === 'boolean') return value;
  if (typeof value === 'string') return named && value.trim() ? `[${named}]` : maskPii(value);
  if (typeof value === 'number') return named ? `[${named}]` : Number.isInteger(value) && Math.abs(value) >= 100_000 ? '[number]' : value;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, name));
  if (typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactValue(v, k)]));
  return value;
}

/** A string's personal details masked; null stays null. */
export function redactText<T extends string | null | undefined>(text: T): T {
  return (typeof text === 'string' ? maskPii(text) : text) as T;
}

/** A turn as `redacted` stores it, and whether anything in what was said was masked (its audio is then beeped). */
export function redactTurn(turn: StoredTurn): { turn: StoredTurn; masked: boolean } {
  const masked = findPii(turn.text).length > 0;
  const out: StoredTurn = { ...turn, text: maskPii(turn.text) };
  if (turn.tool_calls) out.tool_calls = turn.tool_calls.map((c) => ({ ...c, arguments: redactValue(c.arguments), output: redactValue(c.output) }));
  if (turn.retrieval) out.retrieval = { ...turn.retrieval, query: maskPii(turn.retrieval.query) };
  return { turn: out, masked };
}
