import type { llm, voice } from '@livekit/agents';
import { valueKindOf, valueStillComing } from './partial-values.js';

/** The session's text turn-detector contract (`voice._TurnDetector`, not re-exported by name). */
type TextTurnDetectorContract = Extract<NonNullable<voice.AgentSessionOptions['turnDetection']>, { predictEndOfTurn: unknown }>;

// `text_turn_detector`: decides from the words of the caller's last utterance whether the turn is over. A turn that
// trails off on a conjunction, a preposition or a filler ("I'd like to book a table for, um") is unlikely to be
// finished, so the session waits up to max_endpointing_delay; anything else ends after min_endpointing_delay.
// A value read out in parts (a phone number in groups, a spelled email or code, a date) is not finished while it is
// incomplete, whatever the punctuation says (agent/turn/partial-values.ts); what the assistant just asked for tells
// what kind of value the caller is giving when their own words do not. LiveKit's own text model downloads its weights
// at run time; this rule set needs none and is fully testable.

/** Below this probability the session treats the turn as unfinished and waits for the longer delay. */
export const UNLIKELY_THRESHOLD = 0.15;

const TRAILING_CONTINUATIONS = new Set([
  'and', 'but', 'or', 'so', 'because', 'if', 'then', 'that', 'which', 'who', 'when', 'while', 'although',
  'the', 'a', 'an', 'my', 'your', 'our', 'their', 'his', 'her', 'its', 'this', 'these', 'those',
  'to', 'of', 'for', 'with', 'at', 'in', 'on', 'from', 'by', 'about', 'into', 'like', 'than',
  'um', 'uh', 'erm', 'hmm', 'er', 'is', 'are', 'was', 'were', 'am', 'be', 'i', "i'm", 'we', 'you', 'maybe', 'also',
  'dot', 'underscore', 'dash', 'hyphen',
]);

/** Probability (0..1) that `text` is a complete turn; `question` is what the assistant said last, if anything. */
export function endOfTurnProbability(text: string, question?: string): number {
  const trimmed = text.trim();
  if (trimmed.length === 0) return 0;
  const spoken = trimmed.toLowerCase().match(/[a-z0-9']+/g) ?? [];
  if (valueStillComing(spoken, valueKindOf(trimmed) ?? (question === undefined ? undefined : valueKindOf(question)))) return 0.05;
  if (/[.!?]["')\]]*$/.test(trimmed)) return 0.95;
  if (/[,;:\-\u2014]$/.test(trimmed) || trimmed.endsWith('...')) return 0.05;
  const words = trimmed.toLowerCase().match(/[a-z']+/g) ?? [];
  const last = words[words.length - 1];
  if (last && TRAILING_CONTINUATIONS.has(last)) return 0.05;
  return 0.8;
}

export class TextTurnDetector implements TextTurnDetectorContract {
  readonly model = 'text-rules-v1';
  readonly provider = 'local';

  async unlikelyThreshold(): Promise<number> {
    return UNLIKELY_THRESHOLD;
  }

  async supportsLanguage(language?: string): Promise<boolean> {
    return language === undefined || language.toLowerCase().startsWith('en');
  }

  async predictEndOfTurn(chatCtx: llm.ChatContext): Promise<number> {
    for (let i = chatCtx.items.length - 1; i >= 0; i--) {
      const item = chatCtx.items[i];
      if (item?.type === 'message' && item.role === 'user') return endOfTurnProbability(item.textContent ?? '', lastAssistantText(chatCtx.items.slice(0, i)));
    }
    return 1;
  }
}

function lastAssistantText(items: llm.ChatItem[]): string | undefined {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item?.type === 'message' && item.role === 'assistant') return item.textContent ?? undefined;
  }
  return undefined;
}
