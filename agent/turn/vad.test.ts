import { AudioFrame } from '@livekit/rtc-node';
import { inference, initializeLogger, VADEventType, type VAD } from '@livekit/agents';
import { describe, expect, it } from 'vitest';
import { espeakSynthesize } from '../../media/voice/espeak.js';
import { resampleLinear } from '../../media/pcm.js';
import { loadVad, MAX_VAD_SILENCE_MS, MIN_AUDIO_DETECTOR_SILENCE_MS, MIN_TEXT_DETECTOR_SILENCE_MS, VAD_END_LAG_MS, vadSilenceFor } from './vad.js';

initializeLogger({ pretty: false, level: 'silent' });

describe('the VAD silence window follows the assistant endpointing delay', () => {
  it('is the delay less the time the end of speech takes to be declared, within the turn detector floor and the plugin default', () => {
    expect(vadSilenceFor(500)).toBe(500 - VAD_END_LAG_MS);
    expect(vadSilenceFor(300)).toBe(MIN_AUDIO_DETECTOR_SILENCE_MS);
    expect(vadSilenceFor(50)).toBe(MIN_AUDIO_DETECTOR_SILENCE_MS);
    expect(vadSilenceFor(2_000)).toBe(MAX_VAD_SILENCE_MS);
  });

  it('goes below the audio detector floor with the text turn detector, down to its own', () => {
    expect(vadSilenceFor(300, 'text_turn_detector')).toBe(300 - VAD_END_LAG_MS);
    expect(vadSilenceFor(200, 'text_turn_detector')).toBe(MIN_TEXT_DETECTOR_SILENCE_MS);
    expect(vadSilenceFor(300, 'turn_detector')).toBe(MIN_AUDIO_DETECTOR_SILENCE_MS);
  });

  it('loads one model per window and shares it between calls', async () => {
    const a = await loadVad(500);
    expect(a.minSilenceDuration).toBe(500 - VAD_END_LAG_MS);
    expect(await loadVad(500)).toBe(a);
    expect(await loadVad(500, 'text_turn_detector')).toBe(a);
    expect(await loadVad(2_000)).not.toBe(a);
  });
});

/** `text` in espeak's voice at 16 kHz, up to its last voiced sample. */
async function spokenPhrase(text: string): Promise<Int16Array> {
  const spoken = await espeakSynthesize(text, { voice: 'en-us', wordsPerMinute: 175, pitch: 50 });
  const speech = resampleLinear(spoken.samples, spoken.sampleRate, 16_000);
  let end = speech.length;
  while (end > 0 && Math.abs(speech[end - 1]!) < 100) end--;
  return speech.slice(0, end);
}

/** A line at 16 kHz: 300 ms of quiet, the speech, then a second of quiet. */
function onLine(speech: Int16Array): Int16Array {
  const audio = new Int16Array(16_000 * 0.3 + speech.length + 16_000);
  audio.set(speech, 16_000 * 0.3);
  return audio;
}

/**
 * Feeds 300 ms of line noise, the phrase, then a second of noise in 20 ms frames; answers how late the reported end of
 * speech is, taking "now" at the event as the audio pushed so far. As in a call, where audio arrives in real time and
 * the VAD keeps up, the audio pushed runs at most one inference window (32 ms) and a frame ahead of what the VAD has
 * judged: the pushing waits for the VAD's verdict on each window, never for the clock, so the figure is the same on a
 * busy machine as on an idle one.
 */
const WINDOW_MS = 32;

async function endOfSpeechLagMs(vad: VAD, speech: Int16Array, noise: number): Promise<number> {
  const rate = 16_000;
  const audio = onLine(speech);
  // A fixed pseudo-random hiss, so the test reads the same audio every run.
  let seed = 7;
  for (let i = 0; i < audio.length; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    audio[i] = Math.max(-32768, Math.min(32767, audio[i]! + Math.round(((seed / 2 ** 31) * 2 - 1) * noise)));
  }
  const stream = vad.stream();
  let pushedMs = 0;
  let judgedMs = 0;
  let stop = false;
  let judged: () => void = () => {};
  const pushing = (async () => {
    for (let at = 0; at + 320 <= audio.length && !stop; at += 320) {
      // Enough audio for the next window is out: wait for the VAD to judge it before sending more.
      while (pushedMs - judgedMs >= WINDOW_MS && !stop) await new Promise<void>((resolve) => (judged = resolve));
      stream.pushFrame(new AudioFrame(audio.slice(at, at + 320), rate, 1, 320));
      pushedMs += 20;
    }
  })();
  try {
    for await (const ev of stream) {
      judgedMs = Math.max(judgedMs, (ev.samplesIndex * 1000) / rate);
      if (ev.type === VADEventType.END_OF_SPEECH) return pushedMs - ev.silenceDuration - (300 + speech.length / 16);
      // An end of speech for the same window is already queued: let it be read before more audio goes in, as in a call,
      // where the session reads the event the moment the VAD sends it.
      setImmediate(judged);
    }
  } finally {
    stop = true;
    judged();
    await pushing;
    stream.close();
  }
  throw new Error('no end of speech');
}

describe('the end of speech the VAD reports', () => {
  it('is within 20 ms of the real end on clean and noisy lines, where Silero alone reports it up to a tenth of a second late', async () => {
    const phrases = ['Thank you very much.', 'What time is it?', 'Book a table for two.'];
    const silero250 = new inference.VAD({ minSilenceDuration: 250 });
    const corrected = await loadVad(370);
    const rawLag: number[] = [];
    for (const text of phrases) {
      const speech = await spokenPhrase(text);
      for (const noise of [0, 300]) {
        rawLag.push(await endOfSpeechLagMs(silero250, speech, noise));
        const lag = await endOfSpeechLagMs(corrected, speech, noise);
        expect(Math.abs(lag)).toBeLessThanOrEqual(20);
      }
    }
    // Without the correction the same audio ends late: the gap the correction closes.
    expect(Math.max(...rawLag)).toBeGreaterThan(40);
  }, 120_000);
});

describe('the speech duration the VAD reports while the caller may have stopped', () => {
  it('stops growing with the last word, so min_interruption_duration counts speech, not the silence after it', async () => {
    const speech = await spokenPhrase('yeah');
    const rate = 16_000;
    const audio = onLine(speech);
    const spokenMs = (speech.length * 1000) / rate;
    const longest = async (vad: VAD) => {
      const stream = vad.stream();
      let stop = false;
      const pushing = (async () => {
        for (let at = 0; at + 320 <= audio.length && !stop; at += 320) {
          stream.pushFrame(new AudioFrame(audio.slice(at, at + 320), rate, 1, 320));
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      })();
      let most = 0;
      try {
        for await (const ev of stream) {
          if (ev.type === VADEventType.INFERENCE_DONE && ev.speaking) most = Math.max(most, ev.speechDuration);
          if (ev.type === VADEventType.END_OF_SPEECH) break;
        }
      } finally {
        stop = true;
        await pushing;
        stream.close();
      }
      return most;
    };
    // Slack of Silero's own lag past the last voiced sample (up to ~70 ms) and one 32 ms window.
    const corrected = await longest(await loadVad(370));
    expect(corrected).toBeLessThanOrEqual(spokenMs + 100);
    // Silero alone counts on through its silence window (370 ms here).
    expect(await longest(new inference.VAD({ minSilenceDuration: 370 }))).toBeGreaterThan(corrected + 250);
  }, 120_000);
});

describe('the utterance an end of speech carries', () => {
  it('is the audio as it was spoken, pre-roll first, though the VAD has moved on before anyone reads it', async () => {
    const rate = 16_000;
    const voice = await espeakSynthesize('book an appointment', { voice: 'en-us', wordsPerMinute: 175, pitch: 50 });
    const speech = resampleLinear(voice.samples, voice.sampleRate, rate);
    // A second of quiet, the words, then two seconds of quiet pushed before the events are read: the framework's VAD
    // reuses its buffer meanwhile, as it does while a recogniser awaits an earlier utterance.
    const audio = new Int16Array(rate + speech.length + 2 * rate);
    audio.set(speech, rate);
    const stream = (await loadVad(500)).stream();
    for (let at = 0; at + 320 <= audio.length; at += 320) stream.pushFrame(new AudioFrame(audio.slice(at, at + 320), rate, 1, 320));
    let utterance: AudioFrame | undefined;
    while (!utterance) {
      const { done, value } = await stream.next();
      if (done) break;
      if (value.type === VADEventType.END_OF_SPEECH) utterance = value.frames[0];
    }
    stream.close();
    expect(utterance).toBeDefined();
    const samples = utterance!.data;
    // It begins in the pre-roll's quiet, and is the very audio pushed from there: not the VAD's buffer after reuse.
    const loud = (v: number) => Math.abs(v) > 500;
    const firstLoud = samples.findIndex(loud);
    expect(firstLoud).toBeGreaterThan(rate * 0.2);
    const start = audio.findIndex(loud) - firstLoud;
    expect(Array.from(samples)).toEqual(Array.from(audio.subarray(start, start + samples.length)));
    expect(samples.length).toBeGreaterThan(speech.length);
  }, 60_000);
});

describe('speech the VAD judges in a burst, behind the audio received', () => {
  it('is dated from the audio, so the session sees it end after it started, and as long as it was spoken', async () => {
    const speech = await spokenPhrase('What time is it?');
    const rate = 16_000;
    const audio = onLine(speech);
    const stream = (await loadVad(370)).stream();
    // The whole call's audio at once: a process that stalled while the caller kept talking, then judges its backlog.
    for (let at = 0; at + 320 <= audio.length; at += 320) stream.pushFrame(new AudioFrame(audio.slice(at, at + 320), rate, 1, 320));
    // The framework's own arithmetic (voice/audio_recognition): start = now - rawAccumulatedSpeech at the first window
    // heard as speech, end = now - silenceDuration - inferenceDuration at the end of speech.
    // The caller's turn is dated from the start of speech event (its span, and the end-of-turn metrics).
    let startedAt: number | undefined;
    let turnStartedAt: number | undefined;
    let endedAt: number | undefined;
    try {
      for await (const ev of stream) {
        if (ev.type === VADEventType.INFERENCE_DONE && ev.rawAccumulatedSpeech > 0) startedAt ??= Date.now() - ev.rawAccumulatedSpeech;
        if (ev.type === VADEventType.START_OF_SPEECH) turnStartedAt ??= Date.now() - ev.speechDuration - ev.inferenceDuration;
        if (ev.type === VADEventType.END_OF_SPEECH) {
          endedAt = Date.now() - ev.silenceDuration - ev.inferenceDuration;
          break;
        }
      }
    } finally {
      stream.close();
    }
    const spokenMs = (speech.length * 1000) / rate;
    // However fast the backlog was judged, the utterance lasts as long as it was spoken, within Silero's slack (its
    // lag at the start, its speech threshold, a window each side).
    expect(endedAt! - startedAt!).toBeGreaterThan(spokenMs - 150);
    expect(endedAt! - startedAt!).toBeLessThan(spokenMs + 250);
    expect(endedAt! - turnStartedAt!).toBeGreaterThan(spokenMs - 150);
    expect(endedAt! - turnStartedAt!).toBeLessThan(spokenMs + 250);
  }, 60_000);
});
