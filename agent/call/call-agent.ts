import { voice, type llm, type stt } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';
import type { TurnTaking } from '../turn/turn-taking.js';

// The assistant as the session runs it: the framework's Agent with the call's turn-taking in two of its hooks. The
// recogniser's events pass through the overlap filter before the session sees them, and a turn that finishes one cut
// off a moment before is merged with it before it is answered (agent/turn/turn-taking.ts).

export interface CallAgentOptions extends voice.AgentOptions<unknown> {
  turns: TurnTaking;
}

export class CallAgent extends voice.Agent {
  readonly #turns: TurnTaking;

  constructor({ turns, ...options }: CallAgentOptions) {
    super(options);
    this.#turns = turns;
  }

  override async sttNode(audio: ReadableStream<AudioFrame> | AsyncIterable<AudioFrame>, modelSettings: voice.ModelSettings): Promise<ReadableStream<stt.SpeechEvent | string> | null> {
    const events = await voice.Agent.default.sttNode(this, audio, modelSettings);
    return events && this.#turns.filterTranscripts(events);
  }

  override async onUserTurnCompleted(chatCtx: llm.ChatContext, newMessage: llm.ChatMessage): Promise<void> {
    await this.#turns.userTurnCompleted(this, chatCtx, newMessage);
  }
}
