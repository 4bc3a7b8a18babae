import { llm } from '@livekit/agents';
import type { UsageOut } from '../../modules/test-runs/index.js';
import { complete } from './models.js';

// The simulated user: a model told who it is (persona) and what it wants (goal), that reads the assistant's replies as
// the other side of a phone call and answers as the user would. It says it is done with DONE_MARK; what it says
// before the mark is its last line.

export const DONE_MARK = '[DONE]';

export function simulatedUserPrompt(persona: string, goal: string): string {
  return [
    'You are role-playing a person on a phone call with an assistant, to test the assistant. Stay in character.',
    `Who you are: ${persona}`,
    `What you want from the call: ${goal}`,
    'Say only what this person would say next, in one or two short spoken sentences: no stage directions, no quotes, no labels.',
    `When your goal is reached, or clearly cannot be, say a short goodbye if it fits and end your message with ${DONE_MARK}.`,
  ].join('\n');
}

export interface SimulatedUserLine {
  /** What the user says; empty when they only ended the conversation. */
  text: string;
  done: boolean;
  usage: UsageOut;
}

export class SimulatedUser {
  readonly #model: llm.LLM;
  readonly #chat: llm.ChatContext;

  constructor(model: llm.LLM, persona: string, goal: string) {
    this.#model = model;
    this.#chat = llm.ChatContext.empty();
    this.#chat.addMessage({ role: 'system', content: simulatedUserPrompt(persona, goal) });
  }

  /** What the assistant said: the other side, as the user hears it. */
  heard(text: string): void {
    if (text.trim()) this.#chat.addMessage({ role: 'user', content: text });
  }

  /** A line the user says that was not written by its model (a given first message). */
  said(text: string): void {
    this.#chat.addMessage({ role: 'assistant', content: text });
  }

  async next(signal: AbortSignal): Promise<SimulatedUserLine> {
    // A model asked to speak first is given a cue, since a chat cannot start with the other side's turn missing.
    const opening = !this.#chat.items.some((item) => item.type === 'message' && item.role !== 'system');
    const chat = this.#chat.copy();
    if (opening) chat.addMessage({ role: 'user', content: '(The call has connected. Speak first.)' });
    const { text, usage } = await complete(this.#model, chat, signal);
    const done = text.includes(DONE_MARK);
    const line = text.replaceAll(DONE_MARK, '').trim();
    if (line) this.said(line);
    return { text: line, done, usage };
  }
}
