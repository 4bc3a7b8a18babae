import { llm } from '@livekit/agents';
import { describe, expect, it } from 'vitest';
import { endOfTurnProbability, TextTurnDetector, UNLIKELY_THRESHOLD } from './text-turn-detector.js';

describe('the text end-of-turn detector', () => {
  it.each(['what time is it', 'Yes, please.', 'Can you help me?', 'book an appointment'])('treats %j as a finished turn', (text) => {
    expect(endOfTurnProbability(text)).toBeGreaterThan(UNLIKELY_THRESHOLD);
  });

  it.each(['I would like to book a table for', 'my number is, um', 'I need help with my order and', 'so the thing is,'])('waits for more after %j', (text) => {
    expect(endOfTurnProbability(text)).toBeLessThan(UNLIKELY_THRESHOLD);
  });

  it('reads the last user message of the conversation', async () => {
    const ctx = llm.ChatContext.empty();
    ctx.addMessage({ role: 'assistant', content: 'How can I help?' });
    ctx.addMessage({ role: 'user', content: 'I want to change my' });
    expect(await new TextTurnDetector().predictEndOfTurn(ctx)).toBeLessThan(UNLIKELY_THRESHOLD);
  });

  describe('a value read out in parts', () => {
    it.each([
      'my number is four one five.',
      'My number is four one five five five five.',
      'you can reach me at six five zero',
      'my email is sarah',
      'my email is sarah underscore',
      "it's john dot smith at gmail dot",
      'the code is A seven B',
      'my booking reference is X',
      'my date of birth is March',
      'my date of birth is March third.',
    ])('waits for the rest after %j, full stop or not', (text) => {
      expect(endOfTurnProbability(text)).toBeLessThan(UNLIKELY_THRESHOLD);
    });

    it.each([
      'My number is four one five five five five two six seven one.',
      'my email is sarah underscore lee at outlook dot com',
      'my date of birth is March third nineteen eighty five',
      "I'd like to cancel my order.",
    ])('ends the turn once the value is whole: %j', (text) => {
      expect(endOfTurnProbability(text)).toBeGreaterThan(UNLIKELY_THRESHOLD);
    });

    it('knows from the question what the caller is giving when their words do not say', () => {
      expect(endOfTurnProbability("it's john", 'What email address should I send it to?')).toBeLessThan(UNLIKELY_THRESHOLD);
      expect(endOfTurnProbability('four one five five five five', 'What is the best number to call you back on?')).toBeLessThan(UNLIKELY_THRESHOLD);
      expect(endOfTurnProbability("it's john", 'How can I help?')).toBeGreaterThan(UNLIKELY_THRESHOLD);
    });

    it('takes a one-word answer to a question about a number as an answer, not a group of digits', () => {
      expect(endOfTurnProbability("I don't have one.", 'What is your phone number?')).toBeGreaterThan(UNLIKELY_THRESHOLD);
    });

    it("reads the question from the assistant message before the caller's words", async () => {
      const ctx = llm.ChatContext.empty();
      ctx.addMessage({ role: 'assistant', content: 'Could you spell your booking code for me?' });
      ctx.addMessage({ role: 'user', content: 'Sure, it is K' });
      expect(await new TextTurnDetector().predictEndOfTurn(ctx)).toBeLessThan(UNLIKELY_THRESHOLD);
    });
  });
});
