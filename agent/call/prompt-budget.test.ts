import { llm } from '@livekit/agents';
import { describe, expect, it } from 'vitest';
import type { KnowledgeHit } from '../../modules/knowledge/search/hybrid-search.js';
import { fitPassages, fitPrompt, type PromptBudget } from './prompt-budget.js';

const budget: PromptBudget = {
  historyStrategy: 'sliding_window',
  maxHistoryTurns: 20,
  contextWindowTokens: 4000,
  contextBudget: 8000,
  maxPromptDocTokens: 2000,
  includeMetadata: true,
};

function message(role: 'system' | 'user' | 'assistant', text: string): llm.ChatMessage {
  return llm.ChatMessage.create({ role, content: [text] });
}

/** Instructions, a welcome, then `n` turns of a caller's question and the reply, turn `i` with tool calls when asked. */
function conversation(n: number, withTools: number[] = []): llm.ChatItem[] {
  const items: llm.ChatItem[] = [message('system', 'You are the front desk.'), message('assistant', 'Hello, how can I help?')];
  for (let i = 1; i <= n; i++) {
    items.push(message('user', `question ${i}`));
    if (withTools.includes(i)) {
      items.push(llm.FunctionCall.create({ callId: `c${i}`, name: 'lookup', args: '{}' }));
      items.push(llm.FunctionCallOutput.create({ callId: `c${i}`, name: 'lookup', output: `result ${i}`, isError: false }));
    }
    items.push(message('assistant', `answer ${i}`));
  }
  return items;
}

const texts = (items: llm.ChatItem[]) =>
  items.map((i) =>
    i.type === 'message'
      ? `${i.role}:${i.textContent}`
      : i.type === 'function_call'
        ? `call:${i.callId}`
        : i.type === 'function_call_output'
          ? `output:${i.callId}`
          : i.type,
  );

function hit(id: number, content: string, extra: Partial<KnowledgeHit> = {}): KnowledgeHit {
  return {
    chunk_id: id,
    document_id: 1,
    document_name: 'Handbook',
    heading_path: ['Hours'],
    content,
    token_count: Math.ceil(content.length / 4),
    metadata: {},
    lexical_rank: 1,
    lexical_score: 0.5,
    vector_rank: null,
    vector_score: null,
    relevance: null,
    fused_score: 0.016,
    ...extra,
  };
}

describe('the sliding window', () => {
  it('keeps the instructions and the last max_history_turns turns', () => {
    const fitted = fitPrompt(conversation(5), 5, [], { ...budget, maxHistoryTurns: 2 });
    expect(texts(fitted.items)).toEqual(['system:You are the front desk.', 'user:question 4', 'assistant:answer 4', 'user:question 5', 'assistant:answer 5']);
    expect(fitted.dropped).toHaveLength(4);
  });

  it('keeps a tool call with its result when the turn stays and drops them together when it goes', () => {
    const kept = fitPrompt(conversation(3, [3]), 5, [], { ...budget, maxHistoryTurns: 1 });
    expect(texts(kept.items)).toEqual(['system:You are the front desk.', 'user:question 3', 'call:c3', 'output:c3', 'assistant:answer 3']);
    const gone = fitPrompt(conversation(3, [2]), 5, [], { ...budget, maxHistoryTurns: 1 });
    expect(texts(gone.items)).not.toContain('call:c2');
    expect(texts(gone.items)).not.toContain('output:c2');
  });

  it('drops the oldest turns when the history is over context_window_tokens', () => {
    const items = [
      message('system', 'Brief.'),
      message('user', 'x'.repeat(4000)),
      message('assistant', 'ok'),
      message('user', 'short'),
      message('assistant', 'fine'),
    ];
    const fitted = fitPrompt(items, 5, [], { ...budget, contextWindowTokens: 500 });
    expect(texts(fitted.items)).toEqual(['system:Brief.', 'user:short', 'assistant:fine']);
  });

  it('keeps every turn under the full strategy, up to the window', () => {
    const fitted = fitPrompt(conversation(30), 5, [], { ...budget, historyStrategy: 'full' });
    expect(fitted.items).toHaveLength(2 + 60);
  });
});

describe('passages', () => {
  it('fit max_prompt_doc_tokens best first, leaving out a passage that does not fit rather than cutting it', () => {
    const hits = [hit(1, 'a'.repeat(400)), hit(2, 'b'.repeat(4000)), hit(3, 'c'.repeat(400))];
    const fitted = fitPassages(hits, 400, true);
    expect(fitted.included.map((h) => h.chunk_id)).toEqual([1, 3]);
    expect(fitted.text).toContain('a'.repeat(400));
    expect(fitted.text).not.toContain('bbbb');
  });

  it('name their source and heading, with the document metadata, when include_metadata is on, and not when off', () => {
    const hits = [hit(1, 'We open at nine.', { metadata: { region: 'EU' } })];
    expect(fitPassages(hits, 2000, true).text).toContain('[1] Source: Handbook › Hours (region: EU)\nWe open at nine.');
    const bare = fitPassages(hits, 2000, false).text;
    expect(bare).toContain('[1]\nWe open at nine.');
    expect(bare).not.toContain('Handbook');
  });

  it('give way first, then the oldest turns, when the whole prompt is over context_budget', () => {
    const items = conversation(4);
    const hits = [hit(1, 'p'.repeat(800)), hit(2, 'q'.repeat(800))];
    // The conversation is ~80 tokens and each passage ~210: both do not fit 400, the first does.
    const fitted = fitPrompt(items, 5, hits, { ...budget, contextBudget: 400 });
    expect(fitted.passages.map((h) => h.chunk_id)).toEqual([1]);
    expect(fitted.items).toHaveLength(items.length);
    // 60 holds no passage, and only the instructions with the last three turns.
    const tighter = fitPrompt(items, 5, hits, { ...budget, contextBudget: 60 });
    expect(tighter.passages).toEqual([]);
    expect(texts(tighter.items)).toEqual([
      'system:You are the front desk.',
      'user:question 2',
      'assistant:answer 2',
      'user:question 3',
      'assistant:answer 3',
      'user:question 4',
      'assistant:answer 4',
    ]);
  });
});

describe('the summarize strategy', () => {
  it('puts the summary after the instructions in place of the turns that fell out', () => {
    const fitted = fitPrompt(conversation(5), 5, [], { ...budget, historyStrategy: 'summarize', maxHistoryTurns: 2 }, 'The caller is Ana.');
    expect(texts(fitted.items).slice(0, 3)).toEqual([
      'system:You are the front desk.',
      'system:Summary of the conversation before the turns below:\nThe caller is Ana.',
      'user:question 4',
    ]);
  });

  it('leaves the summary out while every turn still fits', () => {
    const fitted = fitPrompt(conversation(2), 5, [], { ...budget, historyStrategy: 'summarize' }, 'stale');
    expect(texts(fitted.items).join()).not.toContain('Summary');
  });
});
