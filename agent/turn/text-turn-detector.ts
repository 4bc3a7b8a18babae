import type { llm, voice } from '@livekit/agents';
import { valueKindOf, valueStillComing, type ValueKind } from './partial-values.js';
import type { TurnSignals } from './turn-signals.js';

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
  'and',
  'but',
  'or',
  'so',
  'because',
  'if',
  'then',
  'that',
  'which',
  'who',
  'when',
  'while',
  'although',
  'the',
  'a',
  'an',
  'my',
  'your',
  'our',
  'their',
  'his',
  'her',
  'its',
  'this',
  'these',
  'those',
  'to',
  'of',
  'for',
  'with',
  'at',
  'in',
  'on',
  'from',
  'by',
  'about',
  'into',
  'like',
  'than',
  'um',
  'uh',
  'erm',
  'hmm',
  'er',
  'is',
  'are',
  'was',
  'were',
  'am',
  'be',
  'i',
  "i'm",
  'we',
  'you',
  'maybe',
  'also',
  'dot',
  'underscore',
  'dash',
  'hyphen',
]);

/**
 * What the words alone say of a turn: `complete` (a full stop, question or exclamation mark with nothing pending),
 * `incomplete` (trailing off on a conjunction, preposition, filler or comma, or a value still being read out), or
 * `open` (words that could end a turn or not, such as "it's john" from a recogniser that does not punctuate). The
 * reason names the rule, for the turn's record.
 */
export type TranscriptVerdict = 'complete' | 'incomplete' | 'open';

export interface TranscriptReading {
  verdict: TranscriptVerdict;
  reason: 'empty' | 'value_pending' | 'terminal_punctuation' | 'trailing_punctuation' | 'continuation_word' | 'content_word' | 'phrase_complete';
  /** The value the caller is giving, from their words or the assistant's question. */
  valueKind?: ValueKind;
}

/** Words that end a sentence only when it is cut off, full stop or not ("I want to." is a recogniser's guess). */
const NEVER_LAST = new Set(['and', 'but', 'or', 'because', 'the', 'a', 'an', 'my', 'your', 'to', 'of', 'um', 'uh', 'erm', 'er']);

/** Reads `text`, the caller's words so far; `question` is what the assistant said last, if anything. */
export function readTranscript(text: string, question?: string): TranscriptReading {
  const trimmed = text.trim();
  if (trimmed.length === 0) return { verdict: 'open', reason: 'empty' };
  const spoken = trimmed.toLowerCase().match(/[a-z0-9']+/g) ?? [];
  const valueKind = valueKindOf(trimmed) ?? (question === undefined ? undefined : valueKindOf(question));
  const kind = valueKind ? { valueKind } : {};
  if (valueStillComing(spoken, valueKind)) return { verdict: 'incomplete', reason: 'value_pending', ...kind };
  const words = trimmed.toLowerCase().match(/[a-z']+/g) ?? [];
  const last = words[words.length - 1];
  if (/[.!?]["')\]]*$/.test(trimmed)) {
    // "What are you looking at?" is whole; "I want to." is a fragment a recogniser closed with a full stop.
    if (last && NEVER_LAST.has(last) && !/\?["')\]]*$/.test(trimmed)) return { verdict: 'incomplete', reason: 'continuation_word', ...kind };
    return { verdict: 'complete', reason: 'terminal_punctuation', ...kind };
  }
  if (/[,;:\-\u2014]$/.test(trimmed) || trimmed.endsWith('...')) return { verdict: 'incomplete', reason: 'trailing_punctuation', ...kind };
  if (last && TRAILING_CONTINUATIONS.has(last)) return { verdict: 'incomplete', reason: 'continuation_word', ...kind };
  return { verdict: 'open', reason: 'content_word', ...kind };
}

/** Probability (0..1) that `text` is a complete turn; `question` is what the assistant said last, if anything. */
export function endOfTurnProbability(text: string, question?: string): number {
  const reading = readTranscript(text, question);
  if (reading.reason === 'empty') return 0;
  if (reading.verdict === 'incomplete') return 0.05;
  // Without punctuation a turn ending on a content word is taken as finished: these rules have no other signal.
  return reading.verdict === 'complete' ? 0.95 : 0.8;
}

export class TextTurnDetector implements TextTurnDetectorContract {
  readonly model = 'text-rules-v1';
  readonly provider = 'local';
  readonly #signals: TurnSignals | undefined;

  /** `signals`: the call's, where each decision is noted for the turn's record. */
  constructor(signals?: TurnSignals) {
    this.#signals = signals;
  }

  async unlikelyThreshold(): Promise<number> {
    return UNLIKELY_THRESHOLD;
  }

  async supportsLanguage(language?: string): Promise<boolean> {
    return language === undefined || language.toLowerCase().startsWith('en');
  }

  async predictEndOfTurn(chatCtx: llm.ChatContext): Promise<number> {
    for (let i = chatCtx.items.length - 1; i >= 0; i--) {
      const item = chatCtx.items[i];
      if (item?.type !== 'message' || item.role !== 'user') continue;
      const text = item.textContent ?? '';
      const question = lastAssistantText(chatCtx.items.slice(0, i));
      const probability = endOfTurnProbability(text, question);
      this.#signals?.decided(this.#signals.decisionFromWords(readTranscript(text, question), probability >= UNLIKELY_THRESHOLD, 'transcript'));
      return probability;
    }
    return 1;
  }
}

export function lastAssistantText(items: llm.ChatItem[]): string | undefined {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item?.type === 'message' && item.role === 'assistant') return item.textContent ?? undefined;
  }
  return undefined;
}
