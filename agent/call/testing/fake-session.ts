import { EventEmitter } from 'node:events';
import type { voice } from '@livekit/agents';
import type { SessionEvent, SessionEventMap } from '../session-events.js';

// An AgentSession as the parts of a call see it, without a pipeline: a test sets its states, emits the events a call
// would, and reads what the assistant was asked to say.

export class FakeSession extends EventEmitter {
  agentState: voice.AgentState = 'listening';
  userState: voice.UserState = 'listening';
  readonly said: Array<{ text: string; allowInterruptions: boolean }> = [];
  /** What each `say`'s playout waits for; done at once unless a test says otherwise. */
  playout: () => Promise<void> = () => Promise.resolve();

  send<E extends SessionEvent>(event: E, ev: SessionEventMap[E]): void {
    this.emit(event, ev);
  }

  say(text: string, options: { allowInterruptions: boolean }): { waitForPlayout(): Promise<void> } {
    this.said.push({ text, allowInterruptions: options.allowInterruptions });
    return { waitForPlayout: () => this.playout() };
  }

  /** Listeners still attached, over every event. */
  listening(): number {
    return this.eventNames().reduce((n, name) => n + this.listenerCount(name), 0);
  }
}

/** An LLM failure as the session reports it. */
export function llmError(recoverable: boolean): NonNullable<voice.CloseEvent['error']> {
  return { type: 'llm_error', timestamp: Date.now(), label: 'fake-llm', error: new Error('unavailable'), recoverable };
}
