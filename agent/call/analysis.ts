import { llm } from '@livekit/agents';
import type { TranscriptEntry } from '../../modules/calls/index.js';

// After the call, the assistant's own LLM reads the transcript and returns a summary, whether the call reached its
// goal, and structured fields. A failure is recorded on the call and never fails the call itself.

/** Longest the analysis may take; the call's final write waits for it. */
export const ANALYSIS_TIMEOUT_MS = 20_000;

export interface Analysis {
  summary: string | null;
  outcomes: Record<string, unknown> | null;
  error: string | null;
}

const INSTRUCTIONS = `You analyse a finished phone call between an assistant and a caller.
Reply with one JSON object and nothing else: {"summary": string (two sentences at most), "goal_achieved": boolean, "sentiment": "positive" | "neutral" | "negative", "fields": object (facts the caller gave, such as names, dates, order numbers)}.`;

export async function analyzeCall(model: llm.LLM, systemPrompt: string, transcript: TranscriptEntry[]): Promise<Analysis> {
  if (transcript.length === 0) return { summary: null, outcomes: null, error: 'no transcript' };
  const chatCtx = llm.ChatContext.empty();
  chatCtx.addMessage({ role: 'system', content: `${INSTRUCTIONS}\n\nThe assistant's instructions were:\n${systemPrompt}` });
  chatCtx.addMessage({ role: 'user', content: transcript.map((t) => `${t.role}: ${t.text}`).join('\n') });
  try {
    const stream = model.chat({ chatCtx, connOptions: { maxRetry: 0, retryIntervalMs: 500, timeoutMs: ANALYSIS_TIMEOUT_MS } });
    const timer = setTimeout(() => stream.close(), ANALYSIS_TIMEOUT_MS);
    let text = '';
    try {
      for await (const chunk of stream) text += chunk.delta?.content ?? '';
    } finally {
      clearTimeout(timer);
    }
    const json = text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1);
    const parsed = JSON.parse(json) as Record<string, unknown>;
    const summary = typeof parsed.summary === 'string' ? parsed.summary : null;
    const { summary: _s, ...outcomes } = parsed;
    return { summary, outcomes, error: null };
  } catch (error) {
    return {
      summary: null,
      outcomes: null,
      error: error instanceof SyntaxError ? 'analysis reply was not JSON' : `analysis failed: ${(error as Error).message}`,
    };
  }
}
