import { voice, type llm, type stt } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';
import type { TurnTaking } from '../turn/turn-taking.js';
import type { TurnPrompt } from './turn-prompt.js';
import type { CallLanguages } from './languages.js';

// The assistant as the session runs it: the framework's Agent with the call's turn-taking in two of its hooks. The
// recogniser's events pass through the overlap filter before the session sees them, and a turn that finishes one cut
// off a moment before is merged with it before it is answered (agent/turn/turn-taking.ts). Every agent of a call is one,
// a playbook's too (agent/call/assistant-agent.ts), so turn-taking holds after a handoff; a text run has no turn-taking,
// and its agents keep the framework's hooks. Every reply's prompt then gets its knowledge passages and is cut to the
// budgets (turn-prompt.ts), in calls and text runs alike: a call's turn is prepared when the framework completes it
// (onUserTurnCompleted); a text run's turns come through `session.run({ userInput })`, a path of the framework that
// never calls that hook, so a user message not prepared by then is prepared as its reply's prompt is sent (llmNode).

export interface CallAgentOptions extends voice.AgentOptions<unknown> {
  /** The call's turn-taking; absent in a text run. */
  turns?: TurnTaking | undefined;
  /** Knowledge passages and prompt budgets for each reply. */
  prompt?: TurnPrompt | undefined;
  /** The languages the call follows the caller between (languages.ts). */
  languages?: CallLanguages | undefined;
}

export class CallAgent extends voice.Agent {
  readonly #turns: TurnTaking | undefined;
  readonly #prompt: TurnPrompt | undefined;
  readonly #languages: CallLanguages | undefined;

  constructor({ turns, prompt, languages, ...options }: CallAgentOptions) {
    super(options);
    this.#turns = turns;
    this.#prompt = prompt;
    this.#languages = languages;
  }

  override async sttNode(
    audio: ReadableStream<AudioFrame> | AsyncIterable<AudioFrame>,
    modelSettings: voice.ModelSettings,
  ): Promise<ReadableStream<stt.SpeechEvent | string> | null> {
    const events = await voice.Agent.default.sttNode(this, audio, modelSettings);
    const filtered = events && this.#turns ? this.#turns.filterTranscripts(events) : events;
    return filtered && this.#languages ? this.#languages.watch(filtered) : filtered;
  }

  override async onUserTurnCompleted(chatCtx: llm.ChatContext, newMessage: llm.ChatMessage): Promise<void> {
    await this.#turns?.userTurnCompleted(this, chatCtx, newMessage);
    await this.#prompt?.prepare(chatCtx, newMessage);
    this.#languages?.prepare(chatCtx);
    this.#prepared = newMessage.id;
  }

  /** The user message whose reply's prompt was last prepared: a tool call's follow-up is the same reply's. */
  #prepared: string | undefined;

  override async llmNode(chatCtx: llm.ChatContext, toolCtx: llm.ToolContext, modelSettings: voice.ModelSettings) {
    const at = chatCtx.items.findLastIndex((item) => item.type === 'message' && item.role === 'user');
    const message = chatCtx.items[at] as llm.ChatMessage | undefined;
    if (this.#prompt && message && message.id !== this.#prepared && at === chatCtx.items.length - 1) {
      this.#prepared = message.id;
      // Prepared as in a call, where the message is not in the context yet: its passages go before it.
      const [taken] = chatCtx.items.splice(at, 1);
      await this.#prompt.prepare(chatCtx, message);
      chatCtx.items.push(taken!);
    }
    return voice.Agent.default.llmNode(this, chatCtx, toolCtx, modelSettings);
  }
}
