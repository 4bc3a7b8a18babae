// 16-bit PCM helpers. Audio inside the runtime is mono Int16 at whatever rate its source produced; these functions
// convert between rates and containers without depending on native code, so they behave the same in every process.

/** Linear-interpolation resampling of mono Int16 audio. Adequate for speech recognisers and recordings at 8-48 kHz. */
export function resampleLinear(input: Int16Array, fromRate: number, toRate: number): Int16Array {
  if (fromRate === toRate) return input;
  const ratio = fromRate / toRate;
  const length = Math.floor(input.length / ratio);
  const output = new Int16Array(length);
  for (let i = 0; i < length; i++) {
    const x = i * ratio;
    const j = Math.floor(x);
    const f = x - j;
    const a = input[j] ?? 0;
    const b = input[j + 1] ?? a;
    output[i] = Math.round(a * (1 - f) + b * f);
  }
  return output;
}

/** Averages interleaved channels into one. */
export function downmix(input: Int16Array, channels: number): Int16Array {
  if (channels === 1) return input;
  const length = Math.floor(input.length / channels);
  const output = new Int16Array(length);
  for (let i = 0; i < length; i++) {
    let sum = 0;
    for (let c = 0; c < channels; c++) sum += input[i * channels + c] ?? 0;
    output[i] = Math.round(sum / channels);
  }
  return output;
}

/** Root-mean-square level of a chunk, 0..32768. */
export function rms(samples: Int16Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / samples.length);
}

export function durationMs(samples: number, sampleRate: number): number {
  return Math.round((samples * 1000) / sampleRate);
}

/** Pieces of PCM one after another. */
export function concatPcm(parts: readonly Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
