import { describe, expect, it } from 'vitest';
import { isBackchannel, substantiveWords } from './backchannels.js';

describe('backchannels', () => {
  it.each(['mm-hmm', 'Mhm.', 'yeah', 'Okay.', 'uh huh', 'Uh-huh.', 'right', 'I see.', 'yeah, I see', 'oh okay', 'got it', 'sure, sure'])(
    '%j only acknowledges',
    (text) => {
      expect(isBackchannel(text)).toBe(true);
    },
  );

  it.each(['wait', 'no no, I said Tuesday', 'hold on', 'sorry, can you say that again', 'yeah but wait', 'okay stop', 'what?'])('%j says something', (text) => {
    expect(isBackchannel(text)).toBe(false);
  });

  it('counts only the words that are not acknowledgements', () => {
    expect(substantiveWords('yeah, but wait')).toEqual(['but', 'wait']);
    expect(substantiveWords('okay I see, right')).toEqual([]);
  });

  it('is not a backchannel when nothing was said', () => {
    expect(isBackchannel('  ')).toBe(false);
  });
});
