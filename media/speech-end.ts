// Where a caller's speech really ended, from the audio itself. A neural VAD (Silero) declares speech over a few 32 ms
// windows late: its recurrent state and smoothing keep the speech probability above threshold for 1 to 70 ms after the
// last voiced sample in clean audio, and up to ~150 ms over a noisy line (measured on espeak-ng phrases, see
// docs/benchmarks.md). The session counts the assistant's endpointing delay from that estimate, so the lag would be
// added to every reply. The energy of the trailing audio shows the real end: the last 10 ms block clearly above the
// line's noise floor.

/** Energy is measured in blocks of this length: fine enough for the estimate, coarse enough to ignore single clicks. */
const BLOCK_MS = 10;
/** The floor assumed for digital silence, where the measured noise would be minus infinity. */
const SILENCE_FLOOR_DB = -70;
/** The noise floor is read from the last 80 ms of the VAD's silence, which no speech reaches whatever the VAD's lag. */
const NOISE_BLOCKS = 8;
/** Below this much speech before the VAD's estimate there is no speech level to compare with. */
const MIN_SPEECH_BLOCKS = 5;
/** Speech this close to the noise floor gives no reliable boundary: the VAD's own estimate is kept. */
const MIN_SNR_DB = 10;

function blockLevelsDb(samples: Int16Array, sampleRate: number): Float64Array {
  const size = Math.max(Math.round((sampleRate * BLOCK_MS) / 1000), 1);
  const count = Math.floor(samples.length / size);
  // Blocks are aligned to the end of the audio, which is "now" for the VAD.
  const offset = samples.length - count * size;
  const levels = new Float64Array(count);
  for (let k = 0; k < count; k++) {
    let sum = 0;
    for (let i = offset + k * size, end = i + size; i < end; i++) sum += samples[i]! * samples[i]!;
    levels[k] = 10 * Math.log10(sum / size / (32768 * 32768) + 1e-12);
  }
  return levels;
}

function percentile(values: ArrayLike<number>, p: number): number {
  const sorted = Array.from(values).sort((a, b) => a - b);
  return sorted[Math.min(Math.floor(sorted.length * p), sorted.length - 1)]!;
}

/**
 * The silence at the end of `samples` (mono PCM whose last sample is the present), given that a VAD measured
 * `silenceMs` of it. Answers at least `silenceMs` (never later than the VAD: a breath or a click after its estimate is
 * not speech) and at most `silenceMs + maxCorrectionMs` (a caller's soft last syllable below the threshold can cost
 * at most that much of the endpointing delay).
 */
export function measuredSilenceMs(samples: Int16Array, sampleRate: number, silenceMs: number, maxCorrectionMs: number): number {
  const levels = blockLevelsDb(samples, sampleRate);
  const silentBlocks = Math.round(silenceMs / BLOCK_MS);
  const firstSilent = levels.length - silentBlocks;
  if (firstSilent < MIN_SPEECH_BLOCKS || silentBlocks < NOISE_BLOCKS) return silenceMs;

  const speechDb = percentile(levels.subarray(0, firstSilent), 0.9);
  const noiseDb = Math.max(percentile(levels.subarray(levels.length - NOISE_BLOCKS), 0.5), SILENCE_FLOOR_DB);
  if (speechDb - noiseDb < MIN_SNR_DB) return silenceMs;
  // A quarter of the way from the floor to the speech level in dB, and never within 6 dB of the floor's own wobble.
  const thresholdDb = noiseDb + Math.max(6, 0.25 * (speechDb - noiseDb));

  const earliest = Math.max(firstSilent - Math.floor(maxCorrectionMs / BLOCK_MS), 0);
  let end = earliest;
  for (let k = levels.length - 1; k >= earliest; k--) {
    if (levels[k]! >= thresholdDb) {
      end = k + 1;
      break;
    }
  }
  if (end >= firstSilent) return silenceMs;
  return silenceMs + (firstSilent - end) * BLOCK_MS;
}
