import { audioFramesFromFile, log, type voice } from '@livekit/agents';
import { AudioFrame } from '@livekit/rtc-node';
import { createRequire } from 'node:module';
import path from 'node:path';
import { settledWithin } from '../../lib/async.js';

// What a caller on hold hears while a warm transfer consults the person it calls: the speech framework's own hold
// music (decoded once a process, then looped from memory), a soft tone every few seconds, or silence. It is played on
// the call's audio output as the assistant's speech is, so the caller hears it and the recording keeps it.

export type HoldAudioKind = 'music' | 'tone' | 'none';

const RATE = 16_000;
const FRAME_MS = 20;
const FRAME_SAMPLES = (RATE * FRAME_MS) / 1000;
/** Frames are handed to the output this far ahead of their time, and no further: a stop is heard within it. */
const LEAD_MS = 200;
/** The music at about half its level: background, not a performance. */
const MUSIC_GAIN = 0.5;
/** The tone: 440 Hz for 0.4 s every 3 s, quiet. */
const TONE = { hz: 440, onMs: 400, periodMs: 3_000, amplitude: 3_000 };

let music: Promise<Int16Array | null> | undefined;

/** The framework's hold music at 16 kHz mono, decoded once; null when it cannot be (no decoder): the tone plays instead. */
function holdMusic(): Promise<Int16Array | null> {
  music ??= (async () => {
    const file = path.join(path.dirname(createRequire(import.meta.url).resolve('@livekit/agents')), '../resources/hold_music.ogg');
    const chunks: Int16Array[] = [];
    for await (const frame of audioFramesFromFile(file, { sampleRate: RATE, numChannels: 1 })) chunks.push(new Int16Array(frame.data));
    const all = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of chunks) {
      for (let i = 0; i < c.length; i++) all[at + i] = Math.round(c[i]! * MUSIC_GAIN);
      at += c.length;
    }
    return all.length >= FRAME_SAMPLES ? all : null;
  })().catch((err: unknown) => {
    log().warn({ err }, 'hold music could not be decoded; the hold tone plays instead');
    return null;
  });
  return music;
}

function toneLoop(): Int16Array {
  const samples = new Int16Array((RATE * TONE.periodMs) / 1000);
  const on = (RATE * TONE.onMs) / 1000;
  for (let i = 0; i < on; i++) {
    // Faded in and out over 20 ms, so the tone starts and stops without a click.
    const fade = Math.min(1, i / FRAME_SAMPLES, (on - i) / FRAME_SAMPLES);
    samples[i] = Math.round(Math.sin((2 * Math.PI * TONE.hz * i) / RATE) * TONE.amplitude * fade);
  }
  return samples;
}

export interface Hold {
  /** Ends the hold audio at once (what is queued is cleared) and waits until the output has stopped it. */
  stop(): Promise<void>;
}

/** Starts playing `kind` on `output`, looped, until `stop`. */
export function startHold(output: voice.AudioOutput | null, kind: HoldAudioKind): Hold {
  if (!output || kind === 'none') return { stop: async () => {} };
  let stopped = false;
  let wake: (() => void) | undefined;
  const playing = (async () => {
    const loop = (kind === 'music' ? await holdMusic() : null) ?? toneLoop();
    const started = Date.now();
    let sentMs = 0;
    let offset = 0;
    while (!stopped) {
      while (!stopped && sentMs < Date.now() - started + LEAD_MS) {
        const frame = new Int16Array(FRAME_SAMPLES);
        for (let i = 0; i < FRAME_SAMPLES; i++) frame[i] = loop[(offset + i) % loop.length]!;
        offset = (offset + FRAME_SAMPLES) % loop.length;
        await output.captureFrame(new AudioFrame(frame, RATE, 1, FRAME_SAMPLES));
        sentMs += FRAME_MS;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, LEAD_MS / 2);
      });
    }
  })().catch((err: unknown) => log().warn({ err }, 'hold audio stopped'));
  return {
    stop: async () => {
      if (stopped) return;
      stopped = true;
      wake?.();
      // A frame handed to an output that has closed meanwhile (the carrier took the call into a conference and ended
      // our stream) may never be taken: the loop is waited for a moment, never for ever, so the call can still end.
      await settledWithin(playing, 1_000);
      output.flush();
      output.clearBuffer();
      await settledWithin(output.waitForPlayout(), 1_000);
    },
  };
}
