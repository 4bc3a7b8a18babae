import { startFakeOpenAI, type FakeOpenAI, type OpenAIReply } from './openai.js';

// The chat model a whole call talks to: the assistant's replies are the test's to script, and the post-call analysis
// (a request whose first message opens with the analysis instructions of agent/call/analysis.ts) is answered with the
// summary the test gives, so every call test reads a finished call the same way.

export interface ChatMessage {
  role: string;
  content: unknown;
}

export const messagesOf = (body: Record<string, unknown>): ChatMessage[] => (body.messages ?? []) as ChatMessage[];

export const isAnalysisRequest = (body: Record<string, unknown>): boolean =>
  String(messagesOf(body)[0]?.content ?? '').startsWith('You analyse a finished phone call');

/** The analysis of a call that reached its goal, with `summary`. */
export const analysisReply = (summary: string): OpenAIReply => ({
  text: JSON.stringify({ summary, goal_achieved: true, sentiment: 'neutral', fields: {} }),
});

/** A fake model that answers the analysis with `summary` and every other request with `reply` (`index` counts all). */
export function startFakeCallModel(summary: string, reply: (body: Record<string, unknown>, index: number) => OpenAIReply): Promise<FakeOpenAI> {
  return startFakeOpenAI((body, index) => (isAnalysisRequest(body) ? analysisReply(summary) : reply(body, index)));
}
