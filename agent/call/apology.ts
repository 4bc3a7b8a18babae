import { AudioFrame } from '@livekit/rtc-node';
import type { voice } from '@livekit/agents';
import { settledWithin } from '../../lib/async.js';
import { espeakSynthesize } from '../../media/voice/espeak.js';

// When the call's own vendors have failed, the caller still hears why the line goes quiet: the apology is spoken by
// the offline voice, which depends on no vendor, straight onto the call's audio output.

export const APOLOGY = "I'm sorry, we're having technical difficulties and need to end this call. Please call again later.";

let cached: Promise<Int16Array & { rate?: number }> | undefined;
let cachedRate = 22_050;

/** Plays the apology on `output`; the wait for it to play out is bounded by `timeoutMs`. */
export async function playApology(output: voice.AudioOutput, timeoutMs: number): Promise<void> {
  cached ??= espeakSynthesize(APOLOGY, { voice: 'en-us', wordsPerMinute: 175, pitch: 50 }).then((a) => {
    cachedRate = a.sampleRate;
    return a.samples;
  });
  const samples = await cached;
  const frameSamples = cachedRate / 50;
  output.clearBuffer();
  for (let offset = 0; offset < samples.length; offset += frameSamples) {
    const chunk = samples.slice(offset, offset + frameSamples);
    await output.captureFrame(new AudioFrame(chunk, cachedRate, 1, chunk.length));
  }
  output.flush();
  await settledWithin(output.waitForPlayout(), timeoutMs);
}
