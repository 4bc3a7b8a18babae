import type { voice } from '@livekit/agents';

// Says a fixed text (the welcome, an idle prompt, a tool's "one moment", a transfer's handoff, a voicemail message)
// with whatever voice the session has. A session on a speech-to-speech model has no voice to read a text with: the
// model says it, asked to say exactly that text, in its own voice, and it joins the conversation as the model's reply.
// The framework's `say` refuses such a session.

type SpeakOptions = { allowInterruptions: boolean };

/** What speaking needs of a session; a session without `tts` (a test's stand-in) is spoken to with `say`. */
export interface SpeakingSession<Handle> {
  say(text: string, options: SpeakOptions): Handle;
  readonly tts?: unknown;
  generateReply?(options: { instructions: string; allowInterruptions: boolean; toolChoice: 'none' }): Handle;
}

/** The instructions that have a speech-to-speech model say `text` as it is. */
export function verbatim(text: string): string {
  return `Say exactly the following, word for word, and nothing else: ${JSON.stringify(text)}`;
}

export function speak<Handle>(session: SpeakingSession<Handle>, text: string, options: SpeakOptions): Handle {
  if ('tts' in session && !session.tts && session.generateReply) {
    // No tool call in the middle of a text that must be said as it is.
    return session.generateReply({ instructions: verbatim(text), allowInterruptions: options.allowInterruptions, toolChoice: 'none' });
  }
  return session.say(text, options);
}
