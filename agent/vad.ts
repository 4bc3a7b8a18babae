import type { VAD } from '@livekit/agents';
import * as silero from '@livekit/agents-plugin-silero';

// Silero VAD tuned to the assistant's endpointing. The session waits `min_endpointing_delay` counted from the end of
// the caller's speech, but it only starts counting once the VAD has declared that end, after its own silence window
// (550 ms in the plugin's defaults). With the default 0.3 s delay the silence window, not the assistant's setting, would
// decide when a turn ends: ~250 ms lost on every turn (measured in bench/pipeline). The VAD also declares the end
// ~80 ms after its window has passed (its smoothed speech probability takes that long to fall below the threshold), so
// the window is the delay less that lag, within bounds: the turn then ends when the assistant's delay says.

/** The plugin's own default; a longer window gains nothing, since the turn detector bridges longer pauses anyway. */
export const MAX_VAD_SILENCE_MS = 550;
/** The framework refuses a shorter window with the audio turn detector, whose model needs that much trailing silence. */
export const MIN_VAD_SILENCE_MS = 250;

/** How long after its silence window the VAD declares the end of speech (p50 81 ms in bench/pipeline). */
export const VAD_END_LAG_MS = 100;

export function vadSilenceFor(minEndpointingDelayMs: number): number {
  return Math.round(Math.min(MAX_VAD_SILENCE_MS, Math.max(MIN_VAD_SILENCE_MS, minEndpointingDelayMs - VAD_END_LAG_MS)));
}

// One model per silence window, shared by the process's calls: a handful of distinct values in practice, each ~2 MB.
const loaded = new Map<number, Promise<VAD>>();

/** The VAD for calls whose minimum endpointing delay is `minEndpointingDelayMs`; loaded once per process and window. */
export function loadVad(minEndpointingDelayMs = MAX_VAD_SILENCE_MS): Promise<VAD> {
  const silenceMs = vadSilenceFor(minEndpointingDelayMs);
  let vad = loaded.get(silenceMs);
  if (!vad) {
    vad = silero.VAD.load({ minSilenceDuration: silenceMs });
    // A failed load must not stay cached: the next call tries again.
    vad.catch(() => loaded.delete(silenceMs));
    loaded.set(silenceMs, vad);
  }
  return vad;
}
