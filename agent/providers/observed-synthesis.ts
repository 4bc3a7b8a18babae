import { log, type APIConnectOptions, type tts } from '@livekit/agents';

/** What the mixin uses of a TTS (tts.TTS itself would carry its abstract members into the mixin). */
interface Synthesizer {
  label: string;
  synthesize(text: string, connOptions?: APIConnectOptions, abortSignal?: AbortSignal): tts.ChunkedStream;
  listenerCount(event: 'error'): number;
}
// A mixin's base must take any constructor arguments (TypeScript's rule for mixins).
type TtsClass = new (...args: any[]) => Synthesizer;

/**
 * The same TTS, whose failed `synthesize()` cannot end the process.
 *
 * `@livekit/agents` 1.9 starts a ChunkedStream (the non-streaming path behind every `synthesize()`) from its
 * constructor as `ThrowsPromise.resolve().then(() => this.mainTask().finally(...))` (src/tts/tts.ts:764) and keeps no
 * reference to that promise. When a synthesis fails for good (a non-retryable APIError such as a 401, the last retry
 * of a 429 or 5xx, or any other error), mainTask reports it on the TTS's `error` event, which the session acts on, and
 * then rethrows it (tts.ts:813-836). Nothing can await that rejection: Node reports it as unhandled and by default
 * ends the process with every call on it. The consumer's iteration just ends without audio. SynthesizeStream, the
 * streaming path, swallows the same rethrow (tts.ts:354-358); only the chunked path leaks: a plugin's
 * `synthesize()` (ElevenLabs' POST /text-to-speech/{voice}/stream, Cartesia's and Deepgram's HTTP calls), and our
 * LocalTTS, which the session drives through the framework's StreamAdapter, one `synthesize()` per sentence.
 *
 * The stream is built synchronously and mainTask is looked up only on the next microtask, so wrapping it on the
 * instance adds the missing handler and changes nothing the framework reports, retries or plays. Should a later
 * framework rename mainTask, this does nothing and the ElevenLabs error test in test/providers/tts-wire.test.ts fails
 * on the unhandled rejection.
 */
export function withObservedSynthesis<Engine extends TtsClass>(Base: Engine) {
  return class extends Base {
    override synthesize(text: string, connOptions?: APIConnectOptions, abortSignal?: AbortSignal): tts.ChunkedStream {
      const stream = super.synthesize(text, connOptions, abortSignal);
      const internals = stream as unknown as { mainTask?: () => Promise<unknown> };
      const mainTask = internals.mainTask;
      if (typeof mainTask === 'function') {
        internals.mainTask = () =>
          mainTask.call(stream).catch((error: unknown) => {
            // Already on the `error` event; an engine with no listener there (emit then throws) would lose it unlogged.
            if (this.listenerCount('error') === 0) log().warn({ error, tts: this.label }, 'speech synthesis failed');
          });
      }
      return stream;
    }
  };
}
