import { decodeWav, type PcmAudio } from '../wav.js';
import { RequestThread } from '../../lib/request-thread.js';

// The offline voice: espeak-ng compiled to WebAssembly, run in a thread of its own (espeak-thread.mjs says why and how
// an instance is made ahead). One thread per process serves every call's sentences in the order they are asked for
// (~90 ms a sentence here): a call's audio (VAD, playout, the caller's frames) never waits behind a synthesis, and on a
// machine with a second core the synthesis runs beside it. The compiled module and a waiting instance take ~75 MB of a
// process's RSS, so only the built-in runner (the embedded default, whose first call speaks with this voice) warms it
// at start; LiveKit job processes make it on first use. The thread is unref'd while idle, so it never keeps a process
// alive, and made again if it dies.

export interface EspeakOptions {
  voice: string;
  /** Words per minute; espeak-ng's own default is 175. */
  wordsPerMinute: number;
  /** 0-99, espeak-ng's default is 50. */
  pitch: number;
}

type Answer = { id: number; wav?: Uint8Array; error?: string; cancelled?: boolean };

function argumentsOf(options: EspeakOptions): string[] {
  return ['-w', '/output.wav', '-v', options.voice, '-s', String(options.wordsPerMinute), '-p', String(options.pitch), '-f', '/input.txt'];
}

class VoiceThread {
  readonly #thread = new RequestThread<Answer>(new URL('./espeak-thread.mjs', import.meta.url), (why) => new Error(`the offline voice stopped (${why})`));

  async speak(text: string, options: EspeakOptions, signal?: AbortSignal): Promise<PcmAudio> {
    signal?.throwIfAborted();
    // An interrupted reply's later sentences are dropped from the queue rather than synthesised for nothing.
    const cancel = signal && { signal, message: (id: number) => ({ type: 'cancel', id }) };
    const answer = await this.#thread.request({ type: 'speak', text, args: argumentsOf(options) }, cancel);
    if (answer.wav) return decodeWav(answer.wav);
    throw new Error(answer.cancelled ? 'synthesis cancelled' : `the offline voice failed: ${answer.error ?? 'no reason given'}`);
  }
}

const voice = new VoiceThread();

/**
 * Short sentences already made, by options and text: a greeting, "Sure.", "One moment." come back call after call,
 * and a hit costs nothing where a synthesis costs ~90 ms (more on a busy machine) before the first sound. Up to 64
 * sentences of at most 200 characters: ~3 MB at most.
 */
const spoken = new Map<string, Promise<PcmAudio>>();
const MAX_SPOKEN = 64;
const MAX_SPOKEN_CHARS = 200;

/**
 * Synthesises one utterance to 22.05 kHz mono PCM (shared with other callers: read it, do not change it). A long
 * utterance rejects once `signal` aborts before its turn in the queue came; a short one is made anyway and kept, since
 * another request may be waiting for the same words.
 */
export async function espeakSynthesize(text: string, options: EspeakOptions, signal?: AbortSignal): Promise<PcmAudio> {
  if (text.length > MAX_SPOKEN_CHARS) return voice.speak(text, options, signal);
  signal?.throwIfAborted();
  const key = `${options.voice}\u0000${options.wordsPerMinute}\u0000${options.pitch}\u0000${text}`;
  let audio = spoken.get(key);
  if (audio) {
    // Most recently used last: the oldest is the one let go.
    spoken.delete(key);
  } else {
    audio = voice.speak(text, options);
    audio.catch(() => spoken.delete(key));
  }
  spoken.set(key, audio);
  if (spoken.size > MAX_SPOKEN) spoken.delete(spoken.keys().next().value!);
  return audio;
}

/**
 * Compiles the voice and makes its first instance, so that a process's first call does not wait for them (a worker
 * calls this as it starts).
 */
export function warmLocalVoice(options: EspeakOptions = { voice: 'en-us', wordsPerMinute: 175, pitch: 50 }): Promise<void> {
  // A whole sentence: once it is done the module is compiled, its code has run enough to be optimised (the first
  // sentences of a fresh module took several times longer), and the thread has made the next instance ahead.
  return voice.speak('Thank you for calling, how can I help you today? One moment, please.', options).then(
    () => undefined,
    () => undefined,
  );
}
