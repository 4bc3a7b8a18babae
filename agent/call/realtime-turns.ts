import { voice, type llm } from '@livekit/agents';
import { listen, type SessionEvents } from './session-events.js';

// The timing of a speech-to-speech call's turns, which the framework does not put on its messages: there, the vendor
// hears the caller and answers, and the framework only learns that the caller started and stopped speaking (the
// vendor's speech_started/speech_stopped) and, later, what they said (its input transcription). A caller's turn is
// placed where they spoke, not where its transcription arrived, so the transcript keeps the spoken order; a reply's
// latency is measured from the moment the vendor said the caller stopped.

type Events = voice.AgentSessionEventTypes.UserStateChanged | voice.AgentSessionEventTypes.MetricsCollected;

interface Span {
  startMs: number;
  stopMs: number | undefined;
}

export interface RealtimeTurns {
  /** When the caller spoke the turn whose transcription is `item` (the oldest span not yet given out). */
  userTurn(item: llm.ChatMessage): { startMs: number; stopMs: number } | undefined;
  /** The latency of the reply `item`: end-of-utterance wait, the model's time to first audio, and in all to first audio heard. */
  replyLatency(item: llm.ChatMessage): Record<string, number> | undefined;
  stop(): void;
}

/**
 * `silenceMs` is the silence the vendor's detector waits for before it says the caller stopped: the caller stopped
 * that long before the event, so it is the end-of-utterance delay and is part of what the caller waits.
 */
export function trackRealtimeTurns(session: SessionEvents<Events>, silenceMs: number): RealtimeTurns {
  const spans: Span[] = [];
  let lastStopMs: number | undefined;
  const ttftByResponse = new Map<string, number>();
  const stops = [
    listen(session, voice.AgentSessionEventTypes.UserStateChanged, (ev) => {
      const now = Date.now();
      if (ev.newState === 'speaking') spans.push({ startMs: now, stopMs: undefined });
      else if (ev.oldState === 'speaking') {
        const open = spans.findLast((s) => s.stopMs === undefined);
        if (open) open.stopMs = now;
        lastStopMs = now;
      }
    }),
    listen(session, voice.AgentSessionEventTypes.MetricsCollected, ({ metrics }) => {
      if (metrics.type === 'realtime_model_metrics' && metrics.ttftMs >= 0) ttftByResponse.set(metrics.requestId, metrics.ttftMs);
    }),
  ];
  return {
    userTurn() {
      const at = spans.findIndex((s) => s.stopMs !== undefined);
      if (at < 0) return undefined;
      const [span] = spans.splice(at, 1);
      return { startMs: span!.startMs, stopMs: Math.max(span!.stopMs! - silenceMs, span!.startMs) };
    },
    replyLatency(item) {
      const out: Record<string, number> = {};
      const responseId = item.metrics.providerRequestIds?.[0];
      const ttft = responseId ? ttftByResponse.get(responseId) : undefined;
      if (ttft !== undefined) out.llm_ttft_ms = Math.round(ttft);
      const startedMs = item.metrics.startedSpeakingAt !== undefined ? item.metrics.startedSpeakingAt * 1000 : undefined;
      if (startedMs !== undefined && lastStopMs !== undefined && lastStopMs <= startedMs) {
        out.end_of_utterance_delay_ms = silenceMs;
        out.e2e_latency_ms = Math.round(startedMs - lastStopMs + silenceMs);
      }
      return Object.keys(out).length > 0 ? out : undefined;
    },
    stop() {
      for (const s of stops) s();
    },
  };
}
