import { metrics, voice, type llm } from '@livekit/agents';
import type { ModelUsage } from '../../modules/calls/index.js';
import { listen, type SessionEvents } from './session-events.js';

// What a call's models used, metered from the framework's own metrics: tokens per LLM (the FallbackAdapter passes on
// each vendor's, so a fallback that answered is counted as itself), audio seconds recognised, characters synthesised.
// The LLM is listened to directly, for the whole call: the post-call analysis runs on it after the session has closed.

/** The vendors the call was configured with, as the assistant names them: the framework names them its own way. */
export interface CallVendors {
  stt: { provider: string; model: string | null };
  tts: { provider: string; model: string | null };
  /** The primary LLM, then each fallback. */
  llm: Array<{ provider: string; model: string }>;
  /** The speech-to-speech model, when the call runs on one (then no STT or TTS is used). */
  realtime?: { provider: string; model: string } | undefined;
}

export interface UsageMeter {
  /** Stops listening and answers what was used. */
  close(): ModelUsage;
}

/** Whether the session's recogniser and voice stream natively; the framework wraps those that do not. */
export interface SpeechStreaming {
  stt: boolean;
  tts: boolean;
}

export function meterUsage(
  session: SessionEvents<voice.AgentSessionEventTypes.MetricsCollected>,
  chatLlm: llm.LLM,
  vendors: CallVendors,
  streaming: SpeechStreaming,
): UsageMeter {
  const collector = new metrics.ModelUsageCollector();
  const realtime = new metrics.ModelUsageCollector();
  const onLlm = (m: metrics.LLMMetrics) => collector.collect(m);
  chatLlm.on('metrics_collected', onLlm);
  const stop = listen(session, voice.AgentSessionEventTypes.MetricsCollected, ({ metrics: m }) => {
    // A speech-to-speech model reports each response's tokens, audio and text apart, when the response is done.
    if (m.type === 'realtime_model_metrics') return realtime.collect(m);
    // LLM metrics reach the session too; they are counted from the LLM itself, once.
    if (m.type !== 'stt_metrics' && m.type !== 'tts_metrics') return;
    // A vendor that does not stream is driven by the framework's stream adapter, which reports each utterance or
    // sentence twice: once for the vendor's request (not streamed) and once for its own stream. The requests are what
    // the vendor bills (measured: 66 characters reported for 33 spoken).
    if (!(m.type === 'stt_metrics' ? streaming.stt : streaming.tts) && m.streamed) return;
    collector.collect(m);
  });
  let closed: ModelUsage | undefined;
  return {
    close() {
      if (closed) return closed;
      stop();
      chatLlm.off('metrics_collected', onLlm);
      closed = modelUsageOf(collector.flatten(), vendors);
      if (vendors.realtime) closed.llm.unshift(...realtimeUsageOf(realtime.flatten(), vendors.realtime));
      return closed;
    },
  };
}

/**
 * A speech-to-speech model's tokens, as LLM usage with its audio tokens apart: audio costs several times text (the
 * price table prices them on their own). The totals include them, as the vendor's `input_tokens` do.
 */
export function realtimeUsageOf(usage: metrics.ModelUsage[], vendor: { provider: string; model: string }): ModelUsage['llm'] {
  const llmUsage = usage.filter((u) => u.type === 'llm_usage');
  if (llmUsage.length === 0) return [];
  const sum = (of: (u: metrics.LLMModelUsage) => number) => llmUsage.reduce((acc, u) => acc + of(u), 0);
  return [
    {
      provider: vendor.provider,
      model: vendor.model,
      input_tokens: sum((u) => u.inputTokens),
      output_tokens: sum((u) => u.outputTokens),
      cached_input_tokens: sum((u) => u.inputCachedTokens),
      input_audio_tokens: sum((u) => u.inputAudioTokens),
      output_audio_tokens: sum((u) => u.outputAudioTokens),
    },
  ];
}

/** The framework's usage per model, under the vendor names the assistant uses (and the price table knows). */
export function modelUsageOf(usage: metrics.ModelUsage[], vendors: CallVendors): ModelUsage {
  const out: ModelUsage = { llm: [], stt: [], tts: [] };
  for (const u of usage) {
    if (u.type === 'llm_usage') {
      const vendor = vendors.llm.find((e) => e.model === u.model) ?? (vendors.llm.length === 1 ? vendors.llm[0] : undefined);
      out.llm.push({
        provider: vendor?.provider ?? u.provider.toLowerCase(),
        model: u.model || (vendor?.model ?? 'unknown'),
        input_tokens: u.inputTokens,
        output_tokens: u.outputTokens,
        cached_input_tokens: u.inputCachedTokens,
      });
    } else if (u.type === 'stt_usage') {
      out.stt.push({ provider: vendors.stt.provider, model: u.model || (vendors.stt.model ?? 'unknown'), audio_seconds: u.audioDurationMs / 1000 });
    } else if (u.type === 'tts_usage') {
      out.tts.push({ provider: vendors.tts.provider, model: u.model || (vendors.tts.model ?? 'unknown'), characters: u.charactersCount });
    }
  }
  return out;
}
