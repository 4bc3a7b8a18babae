import { llm } from '@livekit/agents';

// What a warm transfer tells the person it calls before they take the caller: written by the call's own model from
// the conversation so far, as the team's briefing prompt asks, and said to the person by the carrier's voice (a
// carrier's line) or the call's own (LiveKit SIP).

export const DEFAULT_BRIEFING_PROMPT =
  'You are briefing a colleague who is about to take over a phone call. In two or three short spoken sentences, say ' +
  'who is calling (their name if they gave it) and what they need, with any details they gave. No greeting, no preamble.';
/** A briefing is said before the person decides: a minute of speech at most. */
const MAX_BRIEFING_CHARS = 900;
/** The caller is on hold while it is written: past 15 s the plain briefing is said instead. */
const BRIEFING_TIMEOUT_MS = 15_000;
export const FALLBACK_BRIEFING = 'A caller is waiting to be transferred to you.';

/** The conversation as lines for the model: who said what, and what the tools answered. */
function linesOf(history: llm.ChatContext): string[] {
  return history.items.flatMap((item) => {
    if (item.type === 'message' && (item.role === 'user' || item.role === 'assistant') && item.textContent?.trim())
      return [`${item.role === 'user' ? 'Caller' : 'Assistant'}: ${item.textContent}`];
    if (item.type === 'function_call_output') return [`(tool ${item.name} returned: ${item.output.slice(0, 300)})`];
    return [];
  });
}

/** The briefing for this conversation; the plain one when the model fails or takes too long. */
export async function writeBriefing(model: llm.LLM | undefined, history: llm.ChatContext, prompt: string | null): Promise<string> {
  if (!model) return FALLBACK_BRIEFING;
  const chatCtx = new llm.ChatContext();
  chatCtx.addMessage({ role: 'system', content: prompt?.trim() || DEFAULT_BRIEFING_PROMPT });
  chatCtx.addMessage({ role: 'user', content: linesOf(history).join('\n') || '(nothing was said yet)' });
  const stream = model.chat({ chatCtx });
  const timer = setTimeout(() => stream.close(), BRIEFING_TIMEOUT_MS);
  timer.unref();
  let text = '';
  try {
    for await (const chunk of stream) text += chunk.delta?.content ?? '';
  } catch {
    text = '';
  } finally {
    clearTimeout(timer);
  }
  const said = text.replace(/\s+/g, ' ').trim().slice(0, MAX_BRIEFING_CHARS);
  return said || FALLBACK_BRIEFING;
}
