import { type APIConnectOptions, tts } from '@livekit/agents';

// One voice per language, as one TTS the session speaks with: an assistant that speaks several languages has a voice
// for each (`languages[].voice_id`, of the assistant's voice provider), and the call switches between them as the
// caller does (agent/call/languages.ts). Each sentence is synthesised by the voice selected when it starts; the
// voices' metrics and errors are the session's, as a single TTS's would be. The voices share their provider, so they
// share a sample rate and capabilities.

export class LanguageVoices extends tts.TTS {
  label = 'languages.Voices';
  readonly #voices: ReadonlyMap<string, tts.TTS>;
  #current: tts.TTS;

  /** `voices` by language, the main language's first. */
  constructor(voices: ReadonlyMap<string, tts.TTS>) {
    const first = voices.values().next().value;
    if (!first) throw new Error('LanguageVoices needs a voice');
    super(first.sampleRate, first.numChannels, first.capabilities);
    this.#voices = voices;
    this.#current = first;
    for (const voice of new Set(voices.values())) {
      voice.on('metrics_collected', (metrics) => this.emit('metrics_collected', metrics));
      voice.on('error', (error) => this.emit('error', error));
    }
  }

  /** Speaks in `language` from the next sentence on; a language without a voice of its own keeps the current one. */
  select(language: string): void {
    this.#current = this.#voices.get(language) ?? this.#current;
  }

  /** The voice speaking now (the welcome is prepared with it). */
  get current(): tts.TTS {
    return this.#current;
  }

  override get model(): string {
    return this.#current.model;
  }

  override get provider(): string {
    return this.#current.provider;
  }

  synthesize(text: string, connOptions?: APIConnectOptions, abortSignal?: AbortSignal): tts.ChunkedStream {
    return this.#current.synthesize(text, connOptions, abortSignal);
  }

  stream(options?: { connOptions?: APIConnectOptions }): tts.SynthesizeStream {
    return this.#current.stream(options);
  }

  override async close(): Promise<void> {
    await Promise.all([...new Set(this.#voices.values())].map((voice) => voice.close()));
  }
}
