import { describe, expect, it } from 'vitest';
import { luhn, maskPii } from './pii.js';
import { redactTurn, redactValue } from './redact.js';
import { strictestPrivacyMode } from '../privacy.js';

// The masker on what callers and assistants really say, as recognisers and models write it.

const MASKED: Array<[string, string]> = [
  ['Hi, this is Ada Lovelace calling about my order', 'Hi, this is [name] calling about my order'],
  ['my name is john smith and I need help', 'my name is [name] and I need help'],
  ['I need to speak to Mr. Brown', 'I need to speak to [name]'],
  ['Thanks Jordan, talk soon', 'Thanks [name], talk soon'],
  ['Your appointment is on Tuesday, Ada.', 'Your appointment is on Tuesday, [name].'],
  ['My email is ada.lovelace@example.com', 'My email is [email]'],
  ["it's ada dot lovelace at example dot com", "it's [email]"],
  ['my number is five five five one two three four', 'my number is [phone]'],
  ['double five five one two three four five', '[phone]'],
  ['call me back on (415) 555-0123', 'call me back on [phone]'],
  ['my number is +44 20 7946 0958', 'my number is [phone]'],
  ['it is 07700 900123', 'it is [phone]'],
  ['the card is 4111 1111 1111 1111 expiry 12/27', 'the card is [card] expiry 12/27'],
  ['card number 4111-1111-1111-1111', 'card number [card]'],
  ['my social is 123-45-6789', 'my social is [number]'],
  ['account number 12345678', 'account number [number]'],
  ['I live at 221 Baker Street, London NW1 6XE', 'I live at [address]'],
  ['send it to 1600 Pennsylvania Avenue NW, Washington, DC 20500', 'send it to [address]'],
  ["I'm at forty two Wallaby Way", "I'm at [address]"],
  ['my zip code is 62704', 'my zip code is [address]'],
];

const KEPT = [
  'I want 2 tickets for 3 pm',
  'Book an appointment for Tuesday at 3:30',
  'It costs $1,250 per month',
  'I was born in 1985',
  'the meeting is on 2026-11-28',
  "I'm fine thanks",
  'This is great, thank you',
  'May I help you?',
  'Will you call me tomorrow?',
  'Hello, how can I help?',
  'Room 12 on floor 3',
  'order one two three',
  'we have 3 rooms for 2 nights at 150 dollars',
  'one or two people',
  'I need 2 tickets for the way back',
];

describe('the personal-details masker', () => {
  it.each(MASKED)('masks %j', (said, stored) => {
    expect(maskPii(said)).toBe(stored);
  });

  it.each(KEPT)('leaves %j as said', (said) => {
    expect(maskPii(said)).toBe(said);
  });

  it('tells card numbers by the Luhn check: a 16-digit run that fails it is an identifier, not a card', () => {
    expect(luhn('4111111111111111')).toBe(true);
    expect(luhn('4111111111111112')).toBe(false);
    expect(maskPii('reference 4111 1111 1111 1112')).toBe('reference [number]');
  });

  it('masks values by what they hold and by what they are called, keeping booleans, dates and short numbers', () => {
    expect(
      redactValue({
        first_name: 'ada',
        email: 'ada@example.com',
        phone_number: 4155550123,
        note: 'call back on 415 555 0123',
        party_size: 4,
        confirmed: true,
        date: '2026-11-28',
        nested: [{ customer_name: 'lowercase person' }],
      }),
    ).toEqual({
      first_name: '[name]',
      email: '[email]',
      phone_number: '[phone]',
      note: 'call back on [phone]',
      party_size: 4,
      confirmed: true,
      date: '2026-11-28',
      nested: [{ customer_name: '[name]' }],
    });
  });

  it("masks a turn's text, tool arguments and answers and its knowledge query, and says whether its words held a detail", () => {
    const { turn, masked } = redactTurn({
      role: 'assistant',
      text: 'I have booked it for Ada.',
      start_ms: 0,
      end_ms: 10,
      interrupted: false,
      metrics: null,
      tool_calls: [{ name: 'book', arguments: { email: 'ada@example.com', seats: 2 }, output: 'booked for ada@example.com', is_error: false, at_ms: 5 }],
      retrieval: { query: 'refund for 4111 1111 1111 1111', ms: 1, waited_ms: 0, timed_out: false, error: null, hits: [] },
    });
    expect(masked).toBe(true);
    expect(turn.text).toBe('I have booked it for [name].');
    expect(turn.tool_calls![0]).toMatchObject({ arguments: { email: '[email]', seats: 2 }, output: 'booked for [email]' });
    expect(turn.retrieval!.query).toBe('refund for [card]');
    expect(redactTurn({ role: 'user', text: 'book an appointment', start_ms: 0, end_ms: 1, interrupted: false, metrics: null }).masked).toBe(false);
  });
});

describe('the privacy mode a call runs under', () => {
  it('is the stricter of the organisation’s and the assistant’s: an assistant can keep less, never more', () => {
    expect(strictestPrivacyMode('full', null)).toBe('full');
    expect(strictestPrivacyMode('redacted', null)).toBe('redacted');
    expect(strictestPrivacyMode('full', 'redacted')).toBe('redacted');
    expect(strictestPrivacyMode('redacted', 'full')).toBe('redacted');
    expect(strictestPrivacyMode('metadata_only', 'redacted')).toBe('metadata_only');
    expect(strictestPrivacyMode('redacted', 'metadata_only')).toBe('metadata_only');
    expect(strictestPrivacyMode('metadata_only', 'full')).toBe('metadata_only');
  });
});
