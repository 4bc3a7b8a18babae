// DTMF (touch tones): the digits a phone's keypad sends, as audio in the voice band (ITU-T Q.23: one frequency of a row
// plus one of a column) and as RFC 4733 event codes. A carrier's Media Streams has no out-of-band channel, so digits
// are played in-band, as a phone would; the detector reads them back (Goertzel filters at the eight frequencies).

/** The digits a keypad has: 0-9, * and #, and the A-D of the fourth column. `w` in a sequence is a pause. */
export const DTMF_SEQUENCE = /^[0-9*#A-Dw]{1,32}$/;
/** Each tone lasts 100 ms and is followed by 100 ms of silence: Q.24 asks receivers to take 40 ms tones and gaps, and a phone's keypad sends about 100 ms. */
export const DTMF_TONE_MS = 100;
export const DTMF_GAP_MS = 100;
/** A `w` in a sequence waits half a second, the convention of dialling strings (an IVR's menu between digits). */
export const DTMF_PAUSE_MS = 500;

const ROWS = [697, 770, 852, 941] as const;
const COLUMNS = [1209, 1336, 1477, 1633] as const;
const KEYPAD = ['123A', '456B', '789C', '*0#D'] as const;

/** The RFC 4733 event code of a digit (0-9, * 10, # 11, A-D 12-15). */
export function rfc4733Code(digit: string): number {
  const code = '0123456789*#ABCD'.indexOf(digit);
  if (code < 0 || digit.length !== 1) throw new RangeError(`not a DTMF digit: ${digit}`);
  return code;
}

/** The row and column frequencies (Hz) of a digit. */
export function dtmfFrequencies(digit: string): [low: number, high: number] {
  for (let r = 0; r < KEYPAD.length; r++) {
    const c = KEYPAD[r]!.indexOf(digit);
    if (c >= 0 && digit.length === 1) return [ROWS[r]!, COLUMNS[c]!];
  }
  throw new RangeError(`not a DTMF digit: ${digit}`);
}

export type DtmfStep = { digit: string } | { pauseMs: number };

/** A checked sequence as steps: each digit, and a pause for each `w`. */
export function dtmfSteps(sequence: string): DtmfStep[] {
  if (!DTMF_SEQUENCE.test(sequence)) throw new RangeError('a DTMF sequence is 1 to 32 of 0-9, *, #, A-D and w');
  return [...sequence].map((c) => (c === 'w' ? { pauseMs: DTMF_PAUSE_MS } : { digit: c }));
}

/** Each component at -9 dBFS: the pair peaks below full scale, and stays well above a phone line's noise after mu-law. */
const COMPONENT_AMPLITUDE = 0.35 * 32767;

/**
 * The audio of a sequence at `sampleRate`: each digit's tone then its gap, each `w` as silence. A 5 ms ramp at each
 * end of a tone keeps its edges from clicking across the band.
 */
export function dtmfSamples(sequence: string, sampleRate: number): Int16Array {
  const steps = dtmfSteps(sequence);
  const toneSamples = Math.round((sampleRate * DTMF_TONE_MS) / 1000);
  const gapSamples = Math.round((sampleRate * DTMF_GAP_MS) / 1000);
  const ramp = Math.round(sampleRate * 0.005);
  const total = steps.reduce((n, s) => n + ('digit' in s ? toneSamples + gapSamples : Math.round((sampleRate * s.pauseMs) / 1000)), 0);
  const out = new Int16Array(total);
  let at = 0;
  for (const step of steps) {
    if (!('digit' in step)) {
      at += Math.round((sampleRate * step.pauseMs) / 1000);
      continue;
    }
    const [low, high] = dtmfFrequencies(step.digit);
    for (let i = 0; i < toneSamples; i++) {
      const envelope = Math.min(1, i / ramp, (toneSamples - 1 - i) / ramp);
      const t = i / sampleRate;
      out[at + i] = Math.round(envelope * COMPONENT_AMPLITUDE * (Math.sin(2 * Math.PI * low * t) + Math.sin(2 * Math.PI * high * t)));
    }
    at += toneSamples + gapSamples;
  }
  return out;
}

/** Goertzel: the power of one frequency in a block, in the units of (amplitude * N / 2)^2. */
function goertzel(samples: Int16Array, start: number, n: number, frequency: number, sampleRate: number): number {
  const coefficient = 2 * Math.cos((2 * Math.PI * frequency) / sampleRate);
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < n; i++) {
    const s0 = (samples[start + i] ?? 0) + coefficient * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  return s1 * s1 + s2 * s2 - coefficient * s1 * s2;
}

/** Blocks of 20 ms: a 40 ms tone still fills one whole block, and 50 Hz bins separate neighbouring frequencies (73 Hz apart at least). */
const BLOCK_MS = 20;
/** A digit is the pair of strongest row and column only when they carry most of the block's energy... */
const MIN_PAIR_SHARE = 0.5;
/** ...each stands clear of the runner-up of its group... */
const MIN_DOMINANCE = 4;
/** ...and neither is more than 8 dB weaker than the other (the twist Q.24 allows). */
const MAX_TWIST = 6.3;

/**
 * The digits in a stretch of audio. A digit counts once it is heard in two blocks running (40 ms, the shortest tone
 * Q.24 asks a receiver to take); it must go quiet, or change, before the same digit counts again.
 */
export function detectDtmf(samples: Int16Array, sampleRate: number): string {
  const n = Math.round((sampleRate * BLOCK_MS) / 1000);
  let digits = '';
  let candidate: string | null = null;
  let runs = 0;
  let reported = false;
  for (let start = 0; start + n <= samples.length; start += n) {
    const heard = blockDigit(samples, start, n, sampleRate);
    if (heard !== candidate) {
      candidate = heard;
      runs = heard ? 1 : 0;
      reported = false;
    } else if (heard) runs++;
    if (candidate && runs >= 2 && !reported) {
      digits += candidate;
      reported = true;
    }
  }
  return digits;
}

function blockDigit(samples: Int16Array, start: number, n: number, sampleRate: number): string | null {
  let energy = 0;
  for (let i = 0; i < n; i++) energy += (samples[start + i] ?? 0) ** 2;
  if (energy === 0) return null;
  const rows = ROWS.map((f) => goertzel(samples, start, n, f, sampleRate));
  const columns = COLUMNS.map((f) => goertzel(samples, start, n, f, sampleRate));
  const best = (powers: number[]) => {
    const order = powers.map((p, i) => [p, i] as const).sort((a, b) => b[0] - a[0]);
    return { index: order[0]![1], power: order[0]![0], runnerUp: order[1]![0] };
  };
  const row = best(rows);
  const column = best(columns);
  // A pure tone of amplitude A has energy A²N/2 and Goertzel power (AN/2)²: their ratio is N/2.
  const share = (row.power + column.power) / ((energy * n) / 2);
  if (share < MIN_PAIR_SHARE) return null;
  if (row.power < MIN_DOMINANCE * row.runnerUp || column.power < MIN_DOMINANCE * column.runnerUp) return null;
  if (row.power > MAX_TWIST * column.power || column.power > MAX_TWIST * row.power) return null;
  return KEYPAD[row.index]![column.index]!;
}
