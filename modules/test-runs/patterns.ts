// Regular expressions a client sends (`reply_matches`) run in the worker on the assistant's replies, so a pattern that
// backtracks for ever would stall a worker. What is refused are the constructs behind catastrophic backtracking in
// JavaScript's engine: a quantified group that itself holds a quantifier or an alternation (`(a+)+`, `(a|a)*`),
// backreferences, and lookarounds. What is left runs in time polynomial in the text, and the text is bounded: one
// reply, cut at MAX_MATCHED_TEXT characters.

export const MAX_PATTERN_LENGTH = 200;
/** A reply longer than this is matched on its first 4,000 characters (a spoken reply is rarely over 600). */
export const MAX_MATCHED_TEXT = 4_000;
const MAX_QUANTIFIERS = 20;

/** Why the pattern is refused, or null when it is safe to run. */
export function checkPattern(pattern: string): string | null {
  if (pattern.length > MAX_PATTERN_LENGTH) return `A pattern is at most ${MAX_PATTERN_LENGTH} characters`;
  try {
    new RegExp(pattern, 'u');
  } catch {
    return 'Not a valid regular expression';
  }
  if (/\\[1-9]|\\k</.test(pattern)) return 'Backreferences are not allowed';
  if (/\(\?<?[=!]/.test(pattern)) return 'Lookarounds are not allowed';
  // Per open group: whether a quantifier or alternation appeared inside it.
  const stack: { risky: boolean }[] = [];
  let quantifiers = 0;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      i += 1;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      continue;
    }
    if (c === '(') {
      stack.push({ risky: false });
      continue;
    }
    if (c === '|') {
      if (stack.length > 0) stack[stack.length - 1]!.risky = true;
      continue;
    }
    if (c === ')') {
      const group = stack.pop();
      const next = pattern[i + 1];
      const quantified = next === '*' || next === '+' || next === '?' || next === '{';
      if (group?.risky && quantified && next !== '?') return 'A repeated group may not hold a repetition or an alternation (it can backtrack without end)';
      if (group?.risky && stack.length > 0) stack[stack.length - 1]!.risky = true;
      continue;
    }
    if (c === '*' || c === '+' || c === '{') {
      quantifiers += 1;
      if (stack.length > 0) stack[stack.length - 1]!.risky = true;
    }
  }
  if (quantifiers > MAX_QUANTIFIERS) return `At most ${MAX_QUANTIFIERS} repetitions in a pattern`;
  return null;
}

/** Whether `text` (cut to MAX_MATCHED_TEXT) matches a pattern that passed checkPattern. */
export function matchesPattern(pattern: string, text: string, caseSensitive: boolean): boolean {
  return new RegExp(pattern, caseSensitive ? 'u' : 'iu').test(text.slice(0, MAX_MATCHED_TEXT));
}
