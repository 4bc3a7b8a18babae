import { stt, voice, type llm } from '@livekit/agents';
import { CombinedTurnDetector } from './combined-turn-detector.js';
import { OverlapFilter } from './overlap-filter.js';
import { pauseReplyForCaller, replyInProgress, resumePausedReply } from './session-internals.js';
import { TextTurnDetector } from './text-turn-detector.js';
import { TurnSignals, type EndpointingDelays, type TurnDecision } from './turn-signals.js';
import type { TurnDetectionMode } from './vad.js';
import { isPhraseComplete } from '../providers/local/local-stt.js';

// One call's turn-taking, around the framework's session: the end-of-turn decision from every signal
// (combined-turn-detector.ts), words over the assistant held back until they are a turn (overlap-filter.ts), and the
// repair of a turn committed too soon. A caller who resumes within REPAIR_WINDOW_MS of a commit was cut off: the reply
// pauses at once, and when their words come it is dropped and the two parts are answered as one turn, in the
// conversation the model reads and in the call's transcript.

/**
 * After a commit, a caller who starts again within this long is taken to be finishing the same turn. A pause of up to
 * 1.2 s inside a turn (a number read in groups, a spelled email) committed at the 0.3 s minimum delay resumes 0.9 s
 * after the commit; a caller who speaks a full second into the reply is answering it.
 */
export const REPAIR_WINDOW_MS = 1_000;
/** Marks a user message that continues the one before it (the transcript stores the two as one turn). */
export const CONTINUES_TURN = 'continues_turn';

export interface TurnTakingOptions {
  mode: TurnDetectionMode;
  delays: EndpointingDelays;
  /** `min_interruption_words`: words other than acknowledgements that make speech over the assistant a turn. */
  minInterruptionWords: number;
}

type Session = voice.AgentSession;

export class TurnTaking {
  readonly signals: TurnSignals;
  readonly #options: TurnTakingOptions;
  readonly #filter: OverlapFilter;
  #session: Session | undefined;
  /** Where events released outside the recogniser's own flow (when the caller stops) go. */
  #emit: ((event: stt.SpeechEvent) => void) | undefined;
  #lastCommitAt = Number.NEGATIVE_INFINITY;
  #continuing = false;
  #callerSpeaking = false;
  /** The decision behind the last committed turn, until the reply to it takes it for its record. */
  #decisionForReply: TurnDecision | undefined;

  constructor(options: TurnTakingOptions) {
    this.#options = options;
    this.signals = new TurnSignals(options.delays);
    this.#filter = new OverlapFilter({
      minWords: options.minInterruptionWords,
      replyActive: () => this.#session !== undefined && replyInProgress(this.#session),
      onDropped: () => {
        // A backchannel: the reply goes on. If the caller's voice had paused it, it resumes now, not after the
        // false-interruption timeout, which is for sounds that never become words. Deferred: the session arms that
        // timeout right after telling listeners the caller stopped, which would replace a resume armed here.
        setImmediate(() => {
          if (this.#session && !this.#callerSpeaking) resumePausedReply(this.#session);
        });
      },
    });
  }

  /** The session's turn detector for this call's mode. */
  detector(): NonNullable<voice.AgentSessionOptions['turnDetection']> {
    return this.#options.mode === 'text_turn_detector' ? new TextTurnDetector(this.signals) : new CombinedTurnDetector(this.signals);
  }

  /** Follows the session's events; answers the function that stops. */
  attach(session: Session): () => void {
    this.#session = session;
    const onUserState = (ev: voice.UserStateChangedEvent) => {
      if (ev.newState === 'speaking') this.#callerStarted(session);
      else if (ev.oldState === 'speaking') this.#callerStopped();
    };
    const onItem = ({ item }: voice.ConversationItemAddedEvent) => {
      if (item.type !== 'message') return;
      if (item.role === 'assistant') this.signals.assistantSaid(item.textContent ?? '');
      if (item.role !== 'user') return;
      this.#lastCommitAt = Date.now();
      this.#continuing = false;
      this.#decisionForReply = this.signals.committed();
    };
    session.on(voice.AgentSessionEventTypes.UserStateChanged, onUserState);
    session.on(voice.AgentSessionEventTypes.ConversationItemAdded, onItem);
    return () => {
      session.off(voice.AgentSessionEventTypes.UserStateChanged, onUserState);
      session.off(voice.AgentSessionEventTypes.ConversationItemAdded, onItem);
    };
  }

  /** The decision that led to the turn being answered now, once: the assistant turn's record carries it. */
  takeDecision(): TurnDecision | undefined {
    const decision = this.#decisionForReply;
    this.#decisionForReply = undefined;
    return decision;
  }

  /** The recogniser's events as the session should see them: words over the assistant held back until they are a turn. */
  filterTranscripts(events: ReadableStream<stt.SpeechEvent | string>): ReadableStream<stt.SpeechEvent | string> {
    const reader = events.getReader();
    return new ReadableStream<stt.SpeechEvent | string>({
      start: (controller) => {
        this.#emit = (event) => {
          this.#note(event);
          try {
            controller.enqueue(event);
          } catch {
            // The stream is closed: the session has stopped listening.
          }
        };
      },
      pull: async (controller) => {
        const { done, value } = await reader.read();
        if (done) {
          this.#emit = undefined;
          controller.close();
          return;
        }
        if (typeof value === 'string') controller.enqueue(value);
        else for (const event of this.#filter.accept(value)) this.#emit?.(event);
      },
      cancel: (reason) => reader.cancel(reason),
    });
  }

  /**
   * The framework's hook before a committed turn is answered: when the caller was finishing the turn before (cut off
   * and resumed within the repair window, the reply to it cut short), the two parts become one message, and the
   * cut-off part and the reply that never got said leave the conversation.
   */
  async userTurnCompleted(agent: voice.Agent, chatCtx: llm.ChatContext, message: llm.ChatMessage): Promise<void> {
    if (!this.#continuing) return;
    this.#continuing = false;
    const items = chatCtx.items;
    const previous = items.findLastIndex((item) => item.type === 'message' && item.role === 'user');
    if (previous < 0) return;
    const since = items.slice(previous + 1);
    // Only replies cut off by the caller resuming (or never begun): anything the assistant said in full, or did, stays.
    if (!since.every((item) => item.type === 'message' && item.role === 'assistant' && item.interrupted)) return;
    const before = items[previous] as llm.ChatMessage;
    message.content = [`${before.textContent ?? ''} ${message.textContent ?? ''}`.trim()];
    message.extra = { ...message.extra, [CONTINUES_TURN]: true };
    items.splice(previous);
    await agent.updateChatCtx(chatCtx);
  }

  #callerStarted(session: Session): void {
    this.#callerSpeaking = true;
    this.#filter.callerStarted(session.agentState === 'speaking');
    if (Date.now() - this.#lastCommitAt > REPAIR_WINDOW_MS || !replyInProgress(session)) return;
    // Cut off: the reply to the part before stops now, not once the caller has spoken over it for
    // min_interruption_duration; if no words come, the false-interruption timer resumes it.
    this.#continuing = true;
    pauseReplyForCaller(session);
  }

  #callerStopped(): void {
    this.#callerSpeaking = false;
    for (const event of this.#filter.callerStopped()) this.#emit?.(event);
  }

  /** What the session is given also feeds the end-of-turn signals. */
  #note(event: stt.SpeechEvent): void {
    const alternative = event.alternatives?.[0];
    if (event.type === stt.SpeechEventType.FINAL_TRANSCRIPT) this.signals.final(alternative?.text ?? '', alternative?.language, isPhraseComplete(alternative));
    else if (event.type === stt.SpeechEventType.INTERIM_TRANSCRIPT) this.signals.interim(alternative?.text ?? '', alternative?.language);
    else if (event.type === stt.SpeechEventType.END_OF_SPEECH) this.signals.recogniserEnded();
  }
}
