import { voice } from '@livekit/agents';

// What a call under test has done so far, read from its session's events: the cues a scripted caller speaks on and a
// test hangs up on. A script that says "half a second after the welcome" or "a second into the reply" plays the same
// conversation whether the machine is idle or loaded; a script timed from the call's start does not, since on a busy
// machine the welcome may not have started by the time the caller was set to answer it.

export interface HeardItem {
  role: 'user' | 'assistant';
  text: string;
  interrupted: boolean;
}

export class CallProgress {
  /** Messages added to the conversation, in order: a caller's committed turn, an assistant's finished (or cut) speech. */
  readonly items: HeardItem[] = [];
  /** How many times the assistant started speaking (its state became `speaking`). */
  speakingStarts = 0;
  /** The session has started: the line is connected and the caller is heard from here on. */
  started = false;
  /** The session closed. */
  closed = false;
  readonly #waiters = new Set<() => void>();

  /** Follows a session's events from now on. */
  attach(session: voice.AgentSession): void {
    this.started = true;
    session.on(voice.AgentSessionEventTypes.ConversationItemAdded, (ev) => {
      const item = ev.item;
      if (item.type !== 'message' || (item.role !== 'user' && item.role !== 'assistant')) return;
      this.items.push({ role: item.role, text: item.textContent ?? '', interrupted: item.interrupted });
      this.#changed();
    });
    session.on(voice.AgentSessionEventTypes.AgentStateChanged, (ev) => {
      if (ev.newState === 'speaking') this.speakingStarts++;
      this.#changed();
    });
    session.on(voice.AgentSessionEventTypes.Close, () => {
      this.closed = true;
      this.#changed();
    });
  }

  /** Assistant speeches finished or cut off so far. */
  get replies(): number {
    return this.items.filter((i) => i.role === 'assistant').length;
  }

  /** Resolves once `cue` holds (checked on every event), or rejects if the session closes first. */
  until(cue: Cue): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (cue(this)) {
          this.#waiters.delete(check);
          resolve();
        } else if (this.closed) {
          this.#waiters.delete(check);
          reject(new Error('the call ended before its cue'));
        }
      };
      this.#waiters.add(check);
      check();
    });
  }

  #changed(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}

export type Cue = (progress: CallProgress) => boolean;

/** The call is connected: the session runs and hears the caller (on a loaded machine, seconds after the dial). */
export const connected: Cue = (p) => p.started;

/** The assistant has finished (or been cut off in) its `n`th speech: the welcome is the first where there is one. */
export const afterReply =
  (n: number): Cue =>
  (p) =>
    p.replies >= n;

/** The assistant has started its `n`th speech and is speaking. */
export const whileSpeaking =
  (n: number): Cue =>
  (p) =>
    p.speakingStarts >= n;

/** The assistant has finished saying (or been cut off in) a speech holding these words. */
export const afterAssistantSaid =
  (words: string): Cue =>
  (p) =>
    p.items.some((i) => i.role === 'assistant' && i.text.includes(words));

/** A caller's turn ending with these words has been committed. */
export const afterCallerSaid =
  (words: string): Cue =>
  (p) =>
    p.items.some((i) => i.role === 'user' && i.text.trim().toLowerCase().endsWith(words));
