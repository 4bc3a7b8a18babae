import { describe, expect, it } from 'vitest';
import { findUnstorableText, hasUnstorableText } from './storable-text.js';

const SAMPLES: unknown[] = [
  'plain',
  'with a NUL \u0000 inside',
  'a lone surrogate \ud800 here',
  'a pair 😀 is fine',
  { name: 'Ada', tags: ['one', 'two'], nested: { deep: [{ text: 'ok' }] } },
  { name: 'Ada', tags: ['one', 'bad \udc00'] },
  { ['key\u0000']: 'value' },
  [[['deep', { inner: 'x\u0000' }]]],
  [1, true, null, { n: 2 }],
  42,
  null,
];

describe('the screen for text Postgres cannot store', () => {
  it('says yes exactly where the full walk finds something to report', () => {
    for (const sample of SAMPLES) expect(hasUnstorableText(sample), JSON.stringify(sample)).toBe(findUnstorableText(sample, ['body']).length > 0);
  });
});
