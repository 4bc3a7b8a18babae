// Values callers read out in parts, with pauses between the parts: phone numbers in groups, emails and codes spelled
// piece by piece, dates a word at a time. Each part on its own reads like a finished answer ("my number is four one
// five."), and a recogniser that punctuates puts a full stop after it; a reply there cuts the caller off mid-value.
// These rules tell a value that is still coming from one that is complete, from the words so far and, when the
// caller's words do not say what the value is, from what the assistant just asked for.

export type ValueKind = 'phone' | 'email' | 'code' | 'date';

const DIGIT_WORDS = new Set(['zero', 'oh', 'o', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine']);
const PAIRED = new Set(['double', 'triple']);
const MONTHS = new Set(['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december']);
const ORDINAL =
  /^(\d{1,2}(st|nd|rd|th)|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|twenty|thirtieth|thirty)$/;
/** Words that join the pieces of a spelled address: an address never ends on one. */
const EMAIL_JOINERS = new Set(['at', 'dot', 'underscore', 'dash', 'hyphen', 'minus', 'plus']);
const TOP_LEVEL = new Set(['com', 'org', 'net', 'io', 'edu', 'gov', 'uk', 'co', 'de', 'fr', 'ca', 'au', 'info', 'biz', 'us', 'me', 'ai', 'app', 'dev']);

/** What the caller's words, or the question before them, say the value is; the caller's own words come first. */
const CUES: [ValueKind, RegExp][] = [
  ['email', /\b(e-?mail|email address)\b/],
  ['phone', /\b(phone|mobile|cell|telephone|number to call|call me (back )?(at|on)|reach me (at|on))\b|\b(my|your|the|a) number\b/],
  ['code', /\b(code|reference|confirmation|booking number|order number|account number|pin|postcode|post code|zip|spell|letters?)\b/],
  ['date', /\b(date of birth|birthday|born|what date|which date|the date)\b/],
];

export function valueKindOf(text: string): ValueKind | undefined {
  const lower = text.toLowerCase();
  return CUES.find(([, cue]) => cue.test(lower))?.[0];
}

/** Digits said so far, spoken ("four one five", "double five") or written ("415"), in the caller's words. */
function digitCount(words: string[]): number {
  let count = 0;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (/^\d+$/.test(word)) count += word.length;
    else if (DIGIT_WORDS.has(word)) count += PAIRED.has(words[i - 1] ?? '') ? (words[i - 1] === 'double' ? 2 : 3) : 1;
  }
  return count;
}

const isDigitWord = (word: string) => /^\d+$/.test(word) || DIGIT_WORDS.has(word);
const isSingleCharacter = (word: string) => /^[a-z0-9]$/.test(word) || DIGIT_WORDS.has(word);

/**
 * Whether the caller is in the middle of giving a value, given their words so far and the kind of value asked for.
 * Undefined when the words give no sign either way (the other rules decide).
 */
export function valueStillComing(words: string[], kind: ValueKind | undefined): boolean | undefined {
  const last = words[words.length - 1];
  if (!last || !kind) return undefined;
  switch (kind) {
    case 'phone':
      // Numbers are read in groups; fewer than 10 digits is a local number at most, and most numbers asked for on a
      // call have 10 or more. A caller who stops at 7 waits the longer delay, which is the cheaper mistake.
      // Two digits in a row at least: "I don't have one" after "what's your number?" is an answer, not a group.
      if (!(/^\d{2,}$/.test(last) || (isDigitWord(last) && isDigitWord(words[words.length - 2] ?? '')))) return undefined;
      return digitCount(words) < 10;
    case 'email': {
      if (EMAIL_JOINERS.has(last)) return true;
      const at = words.lastIndexOf('at');
      // Complete once it has a domain ending in a known top-level domain: "at gmail dot com".
      return !(at >= 0 && words.slice(at).includes('dot') && TOP_LEVEL.has(last));
    }
    case 'code':
      // A spelled code goes on while its last word is one character; its end is only known from silence.
      return isSingleCharacter(last) ? true : undefined;
    case 'date':
      // "March" or "March third" without a year yet; a year ("nineteen eighty five", "2024") ends it.
      return MONTHS.has(last) || ORDINAL.test(last) ? true : undefined;
  }
}
