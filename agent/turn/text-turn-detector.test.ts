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
});
