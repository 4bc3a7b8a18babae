import { describe, expect, it } from 'vitest';
import { loadVad, MAX_VAD_SILENCE_MS, MIN_VAD_SILENCE_MS, VAD_END_LAG_MS, vadSilenceFor } from './vad.js';

describe('the VAD silence window follows the assistant endpointing delay', () => {
  it('is the delay less the VAD lag, kept between the turn detector minimum and the plugin default', () => {
    expect(vadSilenceFor(500)).toBe(500 - VAD_END_LAG_MS);
    expect(vadSilenceFor(300)).toBe(MIN_VAD_SILENCE_MS);
    expect(vadSilenceFor(50)).toBe(MIN_VAD_SILENCE_MS);
    expect(vadSilenceFor(2_000)).toBe(MAX_VAD_SILENCE_MS);
  });

  it('loads one model per window and shares it between calls', async () => {
    const a = await loadVad(500);
    expect(a.minSilenceDuration).toBe(400);
    expect(await loadVad(500)).toBe(a);
    expect(await loadVad(2_000)).not.toBe(a);
  });
});
