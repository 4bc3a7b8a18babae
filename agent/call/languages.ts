import { llm, stt, type tts } from '@livekit/agents';
import { type AssistantSettings, baseLanguage } from '../../modules/assistants/index.js';
import { createTts, type VendorAccess } from '../providers/speech-providers.js';
import { LanguageVoices } from '../providers/language-voices.js';

// Several languages in one call. An assistant speaks its main language (`stt_settings.language`, with its voice and
// welcome) and those its `languages` list. The recogniser listens for all of them (their codes become its language
// hints, which turns on each vendor's detection); when the caller's turn comes in another of them, the reply follows:
// the model is told which language to answer in, and the voice switches to that language's. Each transcript turn
// records its language. A language the assistant does not speak changes nothing: the call stays in the one it is in.

export interface SpokenLanguage {
  /** The base code (`es`), as the recogniser's reports are matched. */
  language: string;
  welcomeMessage: string | null;
}

/** The assistant's languages, the main one first. */
export function spokenLanguages(settings: AssistantSettings): SpokenLanguage[] {
  return [
    { language: baseLanguage(settings.stt_settings.language), welcomeMessage: null },
    ...settings.languages.map((l) => ({ language: baseLanguage(l.language), welcomeMessage: l.welcome_message })),
  ];
}

/** The recogniser's settings: with other languages and no hints of the team's own, every language is a hint. */
export function listeningSettings(settings: AssistantSettings): AssistantSettings['stt_settings'] {
  const stt = settings.stt_settings;
  if (settings.languages.length === 0 || stt.language_hints.length > 0) return stt;
  return { ...stt, language_hints: spokenLanguages(settings).map((l) => l.language) };
}

/** The session's voice: the assistant's own, or one per language (a language without a voice id keeps the main voice). */
export function voicesOf(settings: AssistantSettings, access: VendorAccess): tts.TTS {
  const main = createTts(settings.tts_settings, access);
  if (settings.languages.length === 0) return main;
  const voices = new Map<string, tts.TTS>([[baseLanguage(settings.stt_settings.language), main]]);
  for (const option of settings.languages) {
    voices.set(baseLanguage(option.language), option.voice_id ? createTts({ ...settings.tts_settings, voice_id: option.voice_id }, access) : main);
  }
  return new LanguageVoices(voices);
}

const names = new Intl.DisplayNames(['en'], { type: 'language' });
const nameOf = (language: string) => {
  try {
    return names.of(language) ?? language;
  } catch {
    return language;
  }
};

export class CallLanguages {
  readonly #spoken: SpokenLanguage[];
  readonly #voice: tts.TTS | undefined;
  #current: SpokenLanguage;
  /** The language of the caller's latest final words, as the recogniser reported it. */
  #heard: string | undefined;
  /** The language of the caller's turn last committed. */
  #callerTurn: string | undefined;

  constructor(spoken: SpokenLanguage[], voice?: tts.TTS) {
    this.#spoken = spoken;
    this.#current = spoken[0]!;
    this.#voice = voice;
  }

  /** The language the assistant speaks now. */
  get current(): string {
    return this.#current.language;
  }

  /**
   * Starts the call in `language` when the assistant speaks it (the call-start lookup's answer); answers the welcome
   * that language has of its own, if any.
   */
  startIn(language: string | undefined): string | null {
    const chosen = language === undefined ? undefined : this.#find(language);
    if (chosen) this.#switchTo(chosen);
    return this.#current.welcomeMessage;
  }

  /** The recogniser's events, passed on as they are; each final transcript's language is noted. */
  watch(events: ReadableStream<stt.SpeechEvent | string>): ReadableStream<stt.SpeechEvent | string> {
    return events.pipeThrough(
      new TransformStream<stt.SpeechEvent | string, stt.SpeechEvent | string>({
        transform: (event, controller) => {
          if (typeof event !== 'string' && event.type === stt.SpeechEventType.FINAL_TRANSCRIPT) {
            const language = event.alternatives?.[0]?.language;
            if (language) this.#heard = baseLanguage(language);
          }
          controller.enqueue(event);
        },
      }),
    );
  }

  /**
   * At the end of the caller's turn, before the reply is made: follows the caller into another of the assistant's
   * languages, and, when the assistant speaks more than one, tells the model which to answer in.
   */
  prepare(chatCtx: llm.ChatContext): void {
    this.#callerTurn = this.#heard;
    const heard = this.#heard === undefined ? undefined : this.#find(this.#heard);
    if (heard && heard !== this.#current) this.#switchTo(heard);
    if (this.#spoken.length < 2) return;
    const name = nameOf(this.#current.language);
    chatCtx.items.push(llm.ChatMessage.create({ role: 'system', content: [`The caller is speaking ${name}. Reply in ${name}.`] }));
  }

  /** The language of a turn being recorded: the caller's as it was heard, the assistant's the one it speaks. */
  languageOf(role: 'user' | 'assistant'): string {
    return role === 'user' ? (this.#heard ?? this.#callerTurn ?? this.#current.language) : this.#current.language;
  }

  #find(language: string): SpokenLanguage | undefined {
    const base = baseLanguage(language);
    return this.#spoken.find((l) => l.language === base);
  }

  #switchTo(language: SpokenLanguage): void {
    this.#current = language;
    if (this.#voice instanceof LanguageVoices) this.#voice.select(language.language);
  }
}
