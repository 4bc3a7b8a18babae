import { inference, type VAD } from '@livekit/agents';
import { SpeechEndVAD } from './speech-end-vad.js';

// Silero VAD tuned to the assistant's endpointing. The model is the framework's own native build
// (`inference.VAD`, from @livekit/local-inference): the same Silero network and the same events as the Silero plugin,
// but run in native code on libuv's thread pool, where the plugin runs onnxruntime from the calls' event loop. Measured
// over the same audio, it takes a fifth of the plugin's CPU (4 streams of 20 s: 0.39 s against 1.7 s), and the VAD,
// one inference per call every 32 ms, is what a core's share per call was mostly made of (docs/benchmarks.md). The session commits a turn `min_endpointing_delay` after the end of
// the caller's speech, but it only learns of that end once the VAD declares it, after its own silence window (550 ms in
// the plugin's defaults). With the default 0.3 s delay the window, not the assistant's setting, would decide when a
// turn ends: ~250 ms lost on every turn (measured in bench/pipeline). So the window is the delay less the time the
// declaration takes to arrive after speech really ended, within bounds; the silence the VAD reports is corrected to the
// real end of speech (agent/turn/speech-end-vad.ts), from which the session then counts the delay.

/** The plugin's own default; a longer window gains nothing, since the turn detector bridges longer pauses anyway. */
export const MAX_VAD_SILENCE_MS = 550;
/** The framework refuses a shorter window with the audio turn detector, whose model needs that much trailing silence. */
export const MIN_AUDIO_DETECTOR_SILENCE_MS = 250;
/**
 * With the text turn detector a pause this short may end speech: it only starts the endpointing delay, which speech
 * resuming cancels. Shorter would split words at their stop consonants.
 */
export const MIN_TEXT_DETECTOR_SILENCE_MS = 150;

/**
 * How long after speech really ended the VAD's declaration arrives, beyond its window: Silero's own lag (up to ~70 ms
 * on a clean line), one 32 ms inference window, and the 20 ms frame that completes it.
 */
export const VAD_END_LAG_MS = 120;

export type TurnDetectionMode = 'turn_detector' | 'text_turn_detector';

export function vadSilenceFor(minEndpointingDelayMs: number, mode: TurnDetectionMode = 'turn_detector'): number {
  const floor = mode === 'turn_detector' ? MIN_AUDIO_DETECTOR_SILENCE_MS : MIN_TEXT_DETECTOR_SILENCE_MS;
  return Math.round(Math.min(MAX_VAD_SILENCE_MS, Math.max(floor, minEndpointingDelayMs - VAD_END_LAG_MS)));
}

// One model per silence window, shared by the process's calls: a handful of distinct values in practice, each ~2 MB.
const loaded = new Map<number, Promise<VAD>>();

/** The VAD for calls with this minimum endpointing delay and turn detection; loaded once per process and window. */
export function loadVad(minEndpointingDelayMs = MAX_VAD_SILENCE_MS, mode: TurnDetectionMode = 'turn_detector'): Promise<VAD> {
  const silenceMs = vadSilenceFor(minEndpointingDelayMs, mode);
  let vad = loaded.get(silenceMs);
  if (!vad) {
    vad = Promise.resolve().then(() => new SpeechEndVAD(new inference.VAD({ minSilenceDuration: silenceMs })));
    // A failed load must not stay cached: the next call tries again.
    vad.catch(() => loaded.delete(silenceMs));
    loaded.set(silenceMs, vad);
  }
  return vad;
}
