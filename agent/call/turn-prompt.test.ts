import { llm, voice } from '@livekit/agents';
import { describe, expect, it } from 'vitest';
import type { KnowledgeHit, SearchResult } from '../../modules/knowledge/search/hybrid-search.js';
import type { PromptBudget } from './prompt-budget.js';
import { FakeSession } from './testing/fake-session.js';
import { TurnPrompt, type Search } from './turn-prompt.js';

// Each reply's prompt: retrieval started on the caller's final words (before the turn ends), the passages added to
// the reply's copy of the conversation, the deadline past which the reply goes without them, and the record the
// transcript keeps.

const budget: PromptBudget = {
  historyStrategy: 'sliding_window',
  maxHistoryTurns: 20,
  contextWindowTokens: 4000,
  contextBudget: 8000,
  maxPromptDocTokens: 2000,
  includeMetadata: true,
};

function result(content: string): SearchResult {
  const hit: KnowledgeHit = {
    chunk_id: 7,
    document_id: 3,
    document_name: 'Handbook',
    heading_path: ['Hours'],
    content,
    token_count: 5,
    metadata: {},
    lexical_rank: 1,
    lexical_score: 0.3,
    vector_rank: 1,
    vector_score: 0.52,
    relevance: 0.9,
    fused_score: 0.0328,
  };
  return {
    hits: [hit],
    timings: { embed_ms: 1, lexical_ms: 1, vector_ms: 1, fetch_ms: 1, total_ms: 4 },
    vector_error: null,
    below_threshold: 0,
    vector_index: 'memory',
  };
}

function setup(search: Search, timeoutMs = 250) {
  const session = new FakeSession();
  const prompt = new TurnPrompt({ budget, search, timeoutMs });
  prompt.attach(session);
  const heard = (transcript: string) =>
    session.send(voice.AgentSessionEventTypes.UserInputTranscribed, {
      type: 'user_input_transcribed',
      transcript,
      isFinal: true,
      itemId: null,
      speakerId: null,
      createdAt: Date.now(),
      language: null,
    });
  const context = () => {
    const ctx = new llm.ChatContext();
    ctx.addMessage({ role: 'system', content: 'You are the front desk.' });
    return ctx;
  };
  return { prompt, heard, context };
}

const user = (text: string) => llm.ChatMessage.create({ role: 'user', content: [text] });
const systemTexts = (ctx: llm.ChatContext) => ctx.items.flatMap((i) => (i.type === 'message' && i.role === 'system' ? [i.textContent ?? ''] : []));

describe('TurnPrompt', () => {
  it('starts the search on the final words and reuses it when the turn ends with the same words', async () => {
    const queries: string[] = [];
    const { prompt, heard, context } = setup(async (q) => {
      queries.push(q);
      return result('We open at nine on weekdays.');
    });
    heard('When do you open on weekdays?');
    expect(queries).toEqual(['When do you open on weekdays?']);
    const ctx = context();
    await prompt.prepare(ctx, user('When do you open on weekdays?'));
    expect(queries).toHaveLength(1);
    expect(systemTexts(ctx)[1]).toContain('[1] Source: Handbook › Hours\nWe open at nine on weekdays.');
    expect(prompt.takeRetrieval()).toMatchObject({
      query: 'When do you open on weekdays?',
      timed_out: false,
      error: null,
      hits: [{ chunk_id: 7, document_id: 3, in_prompt: true }],
    });
    expect(prompt.takeRetrieval()).toBeUndefined();
  });

  it('lets the reply go without passages when retrieval misses the deadline, and records it', async () => {
    const { prompt, context } = setup((_q, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve(result('late')))), 30);
    const ctx = context();
    const started = performance.now();
    await prompt.prepare(ctx, user('Where do I park my car overnight?'));
    expect(performance.now() - started).toBeLessThan(500);
    expect(systemTexts(ctx)).toEqual(['You are the front desk.']);
    expect(prompt.takeRetrieval()).toMatchObject({ timed_out: true, hits: [] });
  });

  it('records a failed search and answers without passages', async () => {
    const { prompt, context } = setup(async () => {
      throw new Error('database unreachable');
    });
    const ctx = context();
    await prompt.prepare(ctx, user('Where do I park my car overnight?'));
    expect(systemTexts(ctx)).toHaveLength(1);
    expect(prompt.takeRetrieval()).toMatchObject({ error: 'database unreachable', timed_out: false });
  });

  it('searches a short follow-up with the turn before it', async () => {
    const queries: string[] = [];
    const { prompt, context } = setup(async (q) => {
      queries.push(q);
      return result('Sundays we are closed.');
    });
    await prompt.prepare(context(), user('When do you open on weekdays?'));
    await prompt.prepare(context(), user('And on Sundays?'));
    expect(queries).toEqual(['When do you open on weekdays?', 'When do you open on weekdays? And on Sundays?']);
  });

  it('searches again when the turn ends with words the early search did not have', async () => {
    const queries: string[] = [];
    const { prompt, heard, context } = setup(async (q) => {
      queries.push(q);
      return result('x');
    });
    heard('I would like to know');
    await prompt.prepare(context(), user('I would like to know your refund policy for opened items'));
    expect(queries).toEqual(['I would like to know', 'I would like to know your refund policy for opened items']);
  });
});
