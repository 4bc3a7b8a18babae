import { voice, type llm, type stt } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';
import type { TurnTaking } from '../turn/turn-taking.js';
import type { TurnPrompt } from './turn-prompt.js';

// The assistant as the session runs it: the framework's Agent with the call's turn-taking in two of its hooks. The
// recogniser's events pass through the overlap filter before the session sees them, and a turn that finishes one cut
// off a moment before is merged with it before it is answered (agent/turn/turn-taking.ts). Every agent of a call is one,
// a playbook's too (agent/call/assistant-agent.ts), so turn-taking holds after a handoff; a text run has no turn-taking,
// and its agents keep the framework's hooks. Every reply's prompt then gets its knowledge passages and is cut to the
// budgets (turn-prompt.ts), in calls and text runs alike.

export interface CallAgentOptions extends voice.AgentOptions<unknown> {
  /** The call's turn-taking; absent in a text run. */
  turns?: TurnTaking | undefined;
  /** Knowledge passages and prompt budgets for each reply. */
  prompt?: TurnPrompt | undefined;
}

export class CallAgent extends voice.Agent {
  readonly #turns: TurnTaking | undefined;
  readonly #prompt: TurnPrompt | undefined;

  constructor({ turns, prompt, ...options }: CallAgentOptions) {
    super(options);
    this.#turns = turns;
    this.#prompt = prompt;
  }

  override async sttNode(audio: ReadableStream<AudioFrame> | AsyncIterable<AudioFrame>, modelSettings: voice.ModelSettings): Promise<ReadableStream<stt.SpeechEvent | string> | null> {
    const events = await voice.Agent.default.sttNode(this, audio, modelSettings);
    return events && this.#turns ? this.#turns.filterTranscripts(events) : events;
  }

  override async onUserTurnCompleted(chatCtx: llm.ChatContext, newMessage: llm.ChatMessage): Promise<void> {
    await this.#turns?.userTurnCompleted(this, chatCtx, newMessage);
    await this.#prompt?.prepare(chatCtx, newMessage);
  }
}
