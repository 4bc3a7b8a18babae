import type { ValidationDetail } from '../../lib/errors.js';

// A refusal as a person reads it. The API's 422 `msg` is written for developers and kept word for word in the API
// (clients match on it); a form shows the same refusal in plain words. Only the validators' own generic sentences
// (lib/zod/detail.ts) are rewritten; a message a schema or service wrote for people ("Give both dates", "No such
// assistant", "The stored key is not sent to another provider...") is shown as it is.

const GENERIC: [pattern: RegExp, words: (m: RegExpExecArray) => string][] = [
  [/^Field required$/, () => 'Fill this in.'],
  [/^String should have at least 1 character$/, () => 'Fill this in.'],
  [/^String should have at least (\d+) characters$/, (m) => `Use at least ${m[1]} characters.`],
  [/^String should have at most (\d+) characters?$/, (m) => `Use at most ${m[1]} characters.`],
  [/^List should have at least (\d+) items?$/, (m) => `Add at least ${m[1]}.`],
  [/^List should have at most (\d+) items?$/, (m) => `No more than ${m[1]}.`],
  [/^Input should be greater than or equal to (\S+)$/, (m) => `Use ${m[1]} or more.`],
  [/^Input should be greater than (\S+)$/, (m) => `Use more than ${m[1]}.`],
  [/^Input should be less than or equal to (\S+)$/, (m) => `Use ${m[1]} or less.`],
  [/^Input should be less than (\S+)$/, (m) => `Use less than ${m[1]}.`],
  [/^Input should be a valid integer/, () => 'Use a whole number.'],
  [/^Input integer is too large$/, () => 'Use a smaller number.'],
  [/^Input should be a valid number/, () => 'Use a number.'],
  [/^Input should be a valid URL$/, () => 'Use a full web address, starting with https://.'],
  [/^value is not a valid email address$/, () => 'Use an email address, like name@example.com.'],
  [/^Input should be a valid boolean$/, () => 'Choose yes or no.'],
  [/^Input should be a valid string$/, () => 'Use text here.'],
  [/^Input should be '[^']*'( or '[^']*'|, '[^']*')*$/, () => 'Pick one of the choices.'],
];

/** What a form shows for one refusal of the API. */
export function friendlyMessage(detail: Pick<ValidationDetail, 'msg' | 'type'>): string {
  for (const [pattern, words] of GENERIC) {
    const m = pattern.exec(detail.msg);
    if (m) return words(m);
  }
  return detail.msg;
}
