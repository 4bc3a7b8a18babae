import { describe, expect, it } from 'vitest';
import { decodeMulaw, encodeMulaw } from './mulaw.js';

describe('G.711 mu-law', () => {
  it('encodes the standard reference points: silence to 0xff, full scale to 0x80 and 0x00', () => {
    expect([...encodeMulaw(new Int16Array([0, 32767, -32768]))]).toEqual([0xff, 0x80, 0x00]);
    expect([...decodeMulaw(new Uint8Array([0xff, 0x7f]))]).toEqual([0, 0]);
  });

  it('round-trips speech-level samples within the companding step of their segment', () => {
    const samples = Int16Array.from({ length: 2000 }, (_, i) => Math.round(12000 * Math.sin(i / 7)));
    const back = decodeMulaw(encodeMulaw(samples));
    samples.forEach((s, i) => expect(Math.abs(back[i]! - s)).toBeLessThanOrEqual(Math.max(8, Math.abs(s) / 16)));
  });
});
