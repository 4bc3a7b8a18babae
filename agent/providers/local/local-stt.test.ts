import { AudioFrame } from '@livekit/rtc-node';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { speechSamples, CALLER_RATE } from '../../../test/fakes/scripted-caller.js';
import { isPhraseComplete, LocalSTT } from './local-stt.js';

// The offline recogniser on real speech (espeak-ng's voice, Debian's pocketsphinx): with keyterms its grammar matches
// whole phrases, and it says so to the end-of-turn decision the way a vendor's recogniser says it with a full stop.

const hasDecoder = (() => {
  try {
    execFileSync('sh', ['-c', 'command -v pocketsphinx_continuous'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

async function utterance(text: string): Promise<AudioFrame> {
  const samples = await speechSamples(text);
  // Quiet around the words, as the VAD hands an utterance over.
  const padded = new Int16Array(samples.length + CALLER_RATE / 2);
  padded.set(samples, CALLER_RATE / 4);
  return new AudioFrame(padded, CALLER_RATE, 1, padded.length);
}

describe.skipIf(!hasDecoder)('the offline recogniser', () => {
  it('marks words matched as whole phrases of its grammar complete, and leaves the text as spoken', async () => {
    const recogniser = new LocalSTT({ keyterms: ['book an appointment', 'what time is it'] });
    const event = await recogniser.recognize(await utterance('book an appointment'));
    const alternative = event.alternatives![0]!;
    expect(alternative.text).toBe('book an appointment');
    expect(isPhraseComplete(alternative)).toBe(true);
  }, 120_000);

  it('says nothing of completeness on free speech, where it has no grammar', async () => {
    const recogniser = new LocalSTT({});
    const event = await recogniser.recognize(await utterance('book an appointment'));
    const alternative = event.alternatives![0]!;
    expect(alternative.text.length).toBeGreaterThan(0);
    expect(isPhraseComplete(alternative)).toBe(false);
  }, 120_000);
});
