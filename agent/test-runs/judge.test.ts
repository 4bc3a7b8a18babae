import { describe, expect, it } from 'vitest';
import { parseVerdict, transcriptText } from './judge.js';
import { DONE_MARK, simulatedUserPrompt } from './simulated-user.js';

describe('the judge', () => {
  it('reads its JSON answer, or a leading yes or no, and fails anything else', () => {
    expect(parseVerdict('{"answer": "Yes", "reason": "It booked."}')).toEqual({ passed: true, reason: 'It booked.' });
    expect(parseVerdict('Sure: {"answer":"no","reason":"Nothing booked."} done')).toEqual({ passed: false, reason: 'Nothing booked.' });
    expect(parseVerdict('No, the table was not booked.')).toEqual({ passed: false, reason: 'No, the table was not booked.' });
    expect(parseVerdict('yes')).toEqual({ passed: true, reason: 'yes' });
    expect(parseVerdict('Maybe.').passed).toBe(false);
    expect(parseVerdict('{"answer": "perhaps"}').passed).toBe(false);
  });

  it('reads the transcript with each turn’s tool calls before its first reply', () => {
    const text = transcriptText({
      transcript: [
        { role: 'assistant', text: 'Hi.', turn: 0 },
        { role: 'user', text: 'Order A-17?', turn: 1 },
        { role: 'assistant', text: 'Shipped.', turn: 1 },
        { role: 'assistant', text: 'Anything else?', turn: 1 },
      ],
      tool_calls: [{ turn: 1, name: 'lookup', arguments: { id: 'A-17' }, output: { status: 'shipped' }, mocked: true, is_error: false }],
    });
    expect(text).toBe(
      [
        'Assistant: Hi.',
        'User: Order A-17?',
        '(Assistant called lookup with {"id":"A-17"}: answered {"status":"shipped"})',
        'Assistant: Shipped.',
        'Assistant: Anything else?',
      ].join('\n'),
    );
  });

  it('tells the simulated user who it is, what it wants and how to end', () => {
    const prompt = simulatedUserPrompt('A busy parent', 'Book a table');
    expect(prompt).toContain('A busy parent');
    expect(prompt).toContain('Book a table');
    expect(prompt).toContain(DONE_MARK);
  });
});
