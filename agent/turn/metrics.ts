import type { llm } from '@livekit/agents';
import type { StoredTurn } from '../../modules/calls/index.js';

// The latency breakdown of an assistant turn, in ms: how long after the caller stopped speaking the turn was declared
// over, the LLM's time to first token, the TTS's time to first audio, and the total to first audio out.

type Metrics = llm.ChatMessage['metrics'];

const ms = (seconds: number | undefined) => (seconds === undefined ? undefined : Math.round(seconds * 1000));

/**
 * An assistant turn's latency; `user` holds the metrics of the caller's turn it answers, where the session puts the
 * end-of-utterance delay (the reply's own metrics do not carry it).
 */
export function turnLatency(m: Metrics, user: Metrics | undefined): Record<string, number> | null {
  const out: Record<string, number> = {};
  const entries: Array<[string, number | undefined]> = [
    ['end_of_utterance_delay_ms', ms(m.endOfTurnDelay ?? user?.endOfTurnDelay)],
    ['llm_ttft_ms', ms(m.llmNodeTtft)],
    ['tts_ttfb_ms', ms(m.ttsNodeTtfb)],
    ['e2e_latency_ms', ms(m.e2eLatency)],
  ];
  for (const [key, value] of entries) if (value !== undefined) out[key] = value;
  return Object.keys(out).length > 0 ? out : null;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/** p50/p95 of each stage over the call's assistant turns. */
export function summarizeLatency(turns: StoredTurn[]): Record<string, unknown> | null {
  const byKey = new Map<string, number[]>();
  for (const t of turns) for (const [k, v] of Object.entries(t.metrics ?? {})) byKey.set(k, [...(byKey.get(k) ?? []), v]);
  if (byKey.size === 0) return null;
  return Object.fromEntries([...byKey].map(([k, v]) => [k, { p50: percentile(v, 50), p95: percentile(v, 95), count: v.length }]));
}
