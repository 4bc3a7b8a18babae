import { describe, expect, it } from 'vitest';
import { decodeMulaw, encodeMulaw } from './mulaw.js';
import { resampleLinear } from './pcm.js';
import { detectDtmf, dtmfSamples, dtmfSteps, DTMF_GAP_MS, DTMF_PAUSE_MS, DTMF_TONE_MS, rfc4733Code } from './dtmf.js';

const ALL = '0123456789*#ABCD';

describe('DTMF', () => {
  it('gives each key its RFC 4733 event code', () => {
    expect([...ALL].map(rfc4733Code)).toEqual([...Array(16).keys()]);
    expect(() => rfc4733Code('E')).toThrow(RangeError);
  });

  it('refuses a sequence that is not 1 to 32 keypad digits and pauses', () => {
    expect(dtmfSteps('1w#')).toEqual([{ digit: '1' }, { pauseMs: DTMF_PAUSE_MS }, { digit: '#' }]);
    for (const bad of ['', '12a', '1 2', 'x', '1'.repeat(33)]) expect(() => dtmfSteps(bad)).toThrow(RangeError);
  });

  it('plays each digit as 100 ms of tone and 100 ms of silence, and w as half a second of silence', () => {
    const samples = dtmfSamples('1w2', 8000);
    expect(samples.length).toBe(((DTMF_TONE_MS + DTMF_GAP_MS) * 2 + DTMF_PAUSE_MS) * 8);
    const loud = (from: number, to: number) => samples.subarray(from * 8, to * 8).some((s) => Math.abs(s) > 1000);
    expect(loud(0, 100)).toBe(true);
    expect(loud(101, 700)).toBe(false);
    expect(loud(700, 800)).toBe(true);
  });

  it('reads back every key, at 8 and 16 kHz, through mu-law, and a repeated digit as two', () => {
    for (const rate of [8000, 16_000]) expect(detectDtmf(dtmfSamples(ALL, rate), rate)).toBe(ALL);
    const line = decodeMulaw(encodeMulaw(resampleLinear(dtmfSamples('1180w#', 16_000), 16_000, 8000)));
    expect(detectDtmf(line, 8000)).toBe('1180#');
  });

  it('hears a tone made elsewhere (852 + 1477 Hz is 9) and nothing in noise or a single whistle', () => {
    const nine = Int16Array.from({ length: 800 }, (_, i) =>
      Math.round(8000 * (Math.sin((2 * Math.PI * 852 * i) / 8000) + Math.sin((2 * Math.PI * 1477 * i) / 8000))),
    );
    expect(detectDtmf(nine, 8000)).toBe('9');
    let seed = 7;
    const noise = Int16Array.from({ length: 8000 }, () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5) * 20000);
    expect(detectDtmf(noise, 8000)).toBe('');
    const whistle = Int16Array.from({ length: 8000 }, (_, i) => Math.round(12000 * Math.sin((2 * Math.PI * 1209 * i) / 8000)));
    expect(detectDtmf(whistle, 8000)).toBe('');
  });
});
