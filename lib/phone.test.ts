import { describe, expect, it } from 'vitest';
import { isPhoneRegion, normalizePhone, phoneDigitsOf } from './phone.js';

describe('normalizePhone', () => {
  const cases: [string, string, string | null, string | null][] = [
    ['+16502530000', 'US', '+16502530000', null],
    ['(650) 253-0000', 'US', '+16502530000', null],
    ['650.253.0000', 'US', '+16502530000', null],
    ['  +1 650 253 0000  ', 'GB', '+16502530000', null],
    ['020 7946 0958', 'GB', '+442079460958', null],
    ['0044 20 7946 0958', 'US', '+442079460958', null],
    ['00 1 650 253 0000', 'US', '+16502530000', null],
    ['+1 650 253 0000 ext. 123', 'US', '+16502530000', '123'],
    ['650-253-0000 x9', 'US', '+16502530000', '9'],
    ['+1 650 253 0000;ext=77', 'US', '+16502530000', '77'],
  ];
  for (const [input, region, e164, ext] of cases) {
    it(`reads ${JSON.stringify(input)} in ${region}`, () => {
      expect(normalizePhone(input, region)).toEqual({ e164, extension: ext });
    });
  }

  it('returns null for text, short, unallocated and absurdly long input', () => {
    for (const input of ['', 'hello', '12', '+1 111 111 1111', '0'.repeat(65), '020 7946 0958']) {
      expect(normalizePhone(input, 'US'), input).toBeNull();
    }
  });

  it('still reads international numbers when the region is unknown', () => {
    expect(normalizePhone('+442079460958', 'XX')).toEqual({ e164: '+442079460958', extension: null });
    expect(normalizePhone('2079460958', 'XX')).toBeNull();
  });
});

describe('helpers', () => {
  it('knows regions with a numbering plan', () => {
    expect(isPhoneRegion('GB')).toBe(true);
    expect(isPhoneRegion('gb')).toBe(false);
    expect(isPhoneRegion('XX')).toBe(false);
  });

  it('extracts the digits of phone-like search text only', () => {
    expect(phoneDigitsOf('(650) 253-0000')).toBe('6502530000');
    expect(phoneDigitsOf('+44 20')).toBe('4420');
    expect(phoneDigitsOf('12')).toBeNull();
    expect(phoneDigitsOf('alice 650')).toBeNull();
  });
});
