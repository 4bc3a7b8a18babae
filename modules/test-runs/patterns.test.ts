import { describe, expect, it } from 'vitest';
import { checkPattern, matchesPattern, MAX_MATCHED_TEXT } from './patterns.js';

describe('checkPattern', () => {
  it.each(['^hello', 'order (A|B)-\\d+', '\\b(yes|yeah)\\b', '(ab)?c', '[(+*]+', 'a{2,3}b', 'shipp(ed|ing)', '(\\w+)?'])('accepts %s', (pattern) => {
    expect(checkPattern(pattern)).toBeNull();
  });

  it.each([
    ['(a+)+$', 'repetition'],
    ['(a|aa)*b', 'repetition'],
    ['((ab)*c)+', 'repetition'],
    ['(x\\s*)+y', 'repetition'],
    ['(a)\\1', 'Backreferences'],
    ['(?<n>a)\\k<n>', 'Backreferences'],
    ['(?=a)b', 'Lookarounds'],
    ['(?<!a)b', 'Lookarounds'],
    ['(', 'valid'],
    ['a'.repeat(201), 'at most 200'],
    ['a+'.repeat(21), 'At most 20'],
  ])('refuses %s', (pattern, why) => {
    expect(checkPattern(pattern)).toContain(why);
  });

  it('matches without case unless asked, on the first 4,000 characters of a reply', () => {
    expect(matchesPattern('^HELLO', 'hello there', false)).toBe(true);
    expect(matchesPattern('^HELLO', 'hello there', true)).toBe(false);
    expect(matchesPattern('END$', `${'x'.repeat(MAX_MATCHED_TEXT)}END`, true)).toBe(false);
  });
});
