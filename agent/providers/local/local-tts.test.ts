import { initializeLogger, tokenize, tts } from '@livekit/agents';
import { describe, expect, it } from 'vitest';
import { espeakSynthesize } from '../../../media/voice/espeak.js';
import { LocalTTS } from './local-tts.js';

// The offline voice as a session drives it: through the framework's stream adapter, one synthesis per sentence. The
// caller hears the first sentence while the later ones are still being made.

initializeLogger({ pretty: false, level: 'silent' });

/** The offline voice, counting the sentences it has finished making. */
class CountingTTS extends LocalTTS {
  finished = 0;
  override synthesize(text: string, ...rest: Parameters<LocalTTS['synthesize']> extends [string, ...infer R] ? R : never): tts.ChunkedStream {
    const stream = super.synthesize(text, ...rest);
    const next = stream.next.bind(stream);
    stream.next = async () => {
      const result = await next();
      if (!result.done && result.value.final) this.finished++;
      return result;
    };
    return stream;
  }
}

describe('the offline voice', () => {
  it('plays the first sentence of a reply before the rest of the reply has been synthesised', async () => {
    const voice = new CountingTTS({ wordsPerMinute: 230 });
    const adapter = new tts.StreamAdapter(voice, new tokenize.basic.SentenceTokenizer());
    const stream = adapter.stream();
    stream.pushText('Our clinic opens at nine in the morning. It closes at five in the afternoon. ');
    stream.pushText('On Saturdays we open at ten. We are closed on Sundays and on public holidays.');
    stream.flush();
    stream.endInput();
    let finishedAtFirstAudio: number | undefined;
    let frames = 0;
    for await (const audio of stream) {
      if (audio === tts.SynthesizeStream.END_OF_STREAM) break;
      frames++;
      finishedAtFirstAudio ??= voice.finished;
    }
    expect(frames).toBeGreaterThan(100);
    // At the first audio of four sentences, at most the first had been made.
    expect(finishedAtFirstAudio).toBeLessThanOrEqual(1);
    expect(voice.finished).toBe(4);
    await adapter.close();
  }, 60_000);

  it('makes the first sentence of a welcome ahead, split as the session will ask for it, so saying it takes the kept audio', async () => {
    const voice = new LocalTTS({ wordsPerMinute: 190 });
    const made = await voice.prepare('Hello there, thanks for calling Acme. How can I help?');
    expect(made).toBeDefined();
    expect(await espeakSynthesize('Hello there, thanks for calling Acme.', { voice: 'en-us', wordsPerMinute: 190, pitch: 50 })).toBe(made);
    // The session's own stream adapter asks for that same sentence: its first frame is the kept audio's beginning.
    const stream = new tts.StreamAdapter(voice, new tokenize.basic.SentenceTokenizer()).stream();
    stream.pushText('Hello there, thanks for calling Acme. How can I help?');
    stream.endInput();
    for await (const audio of stream) {
      if (audio === tts.SynthesizeStream.END_OF_STREAM) break;
      expect(Array.from(audio.frame.data)).toEqual(Array.from(made!.samples.subarray(0, audio.frame.data.length)));
      break;
    }
    stream.close();
  }, 60_000);
});
