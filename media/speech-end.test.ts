import { describe, expect, it } from 'vitest';
import { measuredSilenceMs } from './speech-end.js';

const RATE = 16_000;

/** `speechMs` of a 300 Hz tone at `amplitude`, then `silenceMs` of hiss at `noise` (a fixed pseudo-random sequence). */
function utterance(speechMs: number, silenceMs: number, amplitude = 8000, noise = 0): Int16Array {
  const speech = (speechMs * RATE) / 1000;
  const out = new Int16Array(speech + (silenceMs * RATE) / 1000);
  let seed = 11;
  for (let i = 0; i < out.length; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const hiss = ((seed / 2 ** 31) * 2 - 1) * noise;
    out[i] = Math.round((i < speech ? amplitude * Math.sin((2 * Math.PI * 300 * i) / RATE) : 0) + hiss);
  }
  return out;
}

describe('the silence measured at the end of an utterance', () => {
  it('moves the end of speech back to the last loud block when the VAD declared it late', () => {
    // Speech ended 300 ms ago; the VAD counted only 240 ms of silence.
    expect(measuredSilenceMs(utterance(800, 300), RATE, 240, 160)).toBe(300);
    expect(measuredSilenceMs(utterance(800, 300, 8000, 200), RATE, 240, 160)).toBe(300);
  });

  it('never moves it back by more than the bound', () => {
    expect(measuredSilenceMs(utterance(800, 500), RATE, 250, 160)).toBe(410);
  });

  it('never moves it later than the VAD put it', () => {
    // The VAD measured more silence than the audio shows (a click or breath after its estimate): its figure stands.
    expect(measuredSilenceMs(utterance(800, 250), RATE, 300, 160)).toBe(300);
  });

  it('keeps the VAD figure when speech barely rises above the line noise or there is too little of it', () => {
    expect(measuredSilenceMs(utterance(800, 300, 600, 500), RATE, 240, 160)).toBe(240);
    expect(measuredSilenceMs(utterance(20, 250), RATE, 230, 160)).toBe(230);
  });
});
