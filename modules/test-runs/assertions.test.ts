import { describe, expect, it } from 'vitest';
import { collectedValue, includesSubset, judgeAll, type Conversation } from './assertions.js';
import { Assertion } from './schemas.js';

const conversation: Conversation = {
  userTurns: 2,
  transcript: [
    { role: 'assistant', text: 'Welcome!', turn: 0 },
    { role: 'user', text: 'Where is my order?', turn: 1 },
    { role: 'assistant', text: 'It has shipped.', turn: 1 },
    { role: 'user', text: 'Thanks', turn: 2 },
    { role: 'assistant', text: 'You are welcome.', turn: 2 },
  ],
  tool_calls: [
    {
      turn: 1,
      name: 'lookup_order',
      arguments: { order: { id: 'A-17', region: 'eu' }, verbose: true },
      output: { status: 'shipped' },
      mocked: true,
      is_error: false,
    },
  ],
  collected: { Returns: { values: { order_number: 'A-17', quantity: 2 }, missing: [] } },
};

const judged = (raw: unknown[]) =>
  judgeAll(
    raw.map((a) => Assertion.parse(a)),
    conversation,
    async (q) => ({ passed: q.includes('yes'), reason: 'asked' }),
  );

describe('assertions', () => {
  it('matches tool arguments as a subset, key by key', () => {
    expect(includesSubset({ a: { b: 1, c: 2 }, d: [1, 2] }, { a: { b: 1 } })).toBe(true);
    expect(includesSubset({ a: { b: 1 } }, { a: { b: 2 } })).toBe(false);
    expect(includesSubset({ d: [1, 2] }, { d: [1] })).toBe(false);
    expect(includesSubset({ a: 1 }, {})).toBe(true);
  });

  it('judges each type on the turn it names or any', async () => {
    const results = await judged([
      { type: 'tool_called', name: 'lookup_order', arguments: { order: { id: 'A-17' } } },
      { type: 'tool_called', name: 'lookup_order', turn: 2 },
      { type: 'tool_not_called', name: 'cancel_order' },
      { type: 'tool_called', name: 'lookup_order', arguments: { order: { id: 'B-1' } } },
      { type: 'reply_contains', text: 'SHIPPED' },
      { type: 'reply_contains', text: 'shipped', turn: 2 },
      { type: 'reply_contains', text: 'Shipped', case_sensitive: true },
      { type: 'reply_matches', pattern: '^welcome', turn: null },
      { type: 'value_collected', name: 'order_number', expected: ' a-17 ' },
      { type: 'value_collected', name: 'Returns.quantity', expected: '2' },
      { type: 'value_collected', name: 'email' },
      { type: 'turn_count', min: 3 },
      { type: 'judge', question: 'yes?' },
    ]);
    expect(results.map((r) => r.passed)).toEqual([true, false, true, false, true, false, false, true, true, true, false, false, true]);
    expect(results[3]!.reason).toBe('lookup_order was called, never with {"order":{"id":"B-1"}}');
    expect(results[11]!.reason).toBe('2 user turn(s); expected at least 3');
  });

  it('finds a collected value by name or as playbook.value', () => {
    expect(collectedValue(conversation.collected, 'order_number')).toEqual({ value: 'A-17' });
    expect(collectedValue(conversation.collected, 'Returns.order_number')).toEqual({ value: 'A-17' });
    expect(collectedValue(conversation.collected, 'Other.order_number')).toBeUndefined();
  });

  it('reports a judge that could not answer as a failure with the reason', async () => {
    const [result] = await judgeAll([Assertion.parse({ type: 'judge', question: 'q' })], conversation, async () => {
      throw new Error('vendor down');
    });
    expect(result).toEqual({ index: 0, type: 'judge', passed: false, reason: 'the judge could not answer: vendor down' });
  });
});
