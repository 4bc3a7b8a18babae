import { llm, log, voice } from '@livekit/agents';
import type { ToolCallEntry, ToolMessageKind } from '../../modules/calls/index.js';
import type { ToolOut } from '../../modules/tools/index.js';
import { substantiveWords } from '../turn/backchannels.js';
import { listen, type SessionEvents } from './session-events.js';
import { inSpan } from '../../lib/tracing/index.js';
import { speak } from './speak.js';

// The tool calls of one call while they run: the spoken messages around them, and their cancellation when the caller
// takes the turn. @livekit/agents 1.9 neither aborts a tool when the caller speaks nor interrupts the reply that is
// waiting for it (measured: a hanging request stayed open until the call ended and the caller's words were never
// answered), so the call does both. Once the caller has said `min_interruption_words` words that are not
// acknowledgements ("mm-hmm" while the assistant looks something up is not a new turn), every interruptible tool call
// is aborted and the waiting reply interrupted: the framework records the call with the cancellation as its output,
// says nothing about it, and answers the caller. The transcript marks it `cancelled` (`detail`).
//
// Messages are spoken only while the caller is silent: `on_start` when the call starts, `on_slow` once it has run
// `slow_after_ms`, `on_failure` when it fails (before the model's own reply about it). While any tool runs, the call
// is busy: idle prompts wait (agent/call/idle-prompts.ts), so no "are you still there?" comes over a lookup.

/** What the model is told of a call the caller cut short; it is also the output on the transcript. */
export const CANCELLED_OUTPUT = 'Cancelled: the caller spoke while the tool was running.';

export interface ToolRunSession extends SessionEvents<voice.AgentSessionEventTypes.UserInputTranscribed> {
  readonly userState: voice.UserState;
  say(text: string, options: { allowInterruptions: boolean }): unknown;
  readonly tts?: unknown;
  generateReply?(options: { instructions: string; allowInterruptions: boolean; toolChoice: 'none' }): unknown;
  interrupt(): unknown;
}

export interface ToolRunsOptions {
  /** `min_interruption_words` (at least one word counts). */
  minInterruptionWords: number;
  /** `allow_interruptions`: when false, the caller's words never cancel a tool. */
  interruptions: boolean;
  logFields?: Record<string, unknown>;
}

export interface ToolRunCall {
  /** The framework's tool call id. */
  id: string;
  name: string;
  args: unknown;
  /** Whether the reply that called the tool may be interrupted (`SpeechHandle.allowInterruptions`). */
  interruptible: boolean;
  /** The framework's own abort signal for the call (closing the session fires it). */
  signal?: AbortSignal | undefined;
}

/** How a call ended: `failed` decides whether `on_failure` is spoken. */
export interface ToolRunOutcome<T> {
  value: T;
  failed: boolean;
}

/** What a cancelled call throws: a tool error, so the model reads why it has no result. */
export class ToolRunCancelled extends llm.ToolError {
  constructor() {
    super(CANCELLED_OUTPUT);
    this.name = 'ToolRunCancelled';
  }
}

interface Running {
  call: ToolRunCall;
  controller: AbortController;
  startedAt: number;
}

export class ToolRuns {
  readonly #options: ToolRunsOptions;
  readonly #running = new Map<string, Running>();
  /** Cancelled calls by id, with how long each ran. */
  readonly #cancelled = new Map<string, number>();
  #session: ToolRunSession | undefined;
  /** The caller's words since the oldest running call started: finished segments, and the one being said. */
  #heardFinal = '';
  #heardInterim = '';
  /** The messages said, in order, until the transcript claims each as its turn. */
  readonly #said: Array<{ text: string; kind: ToolMessageKind }> = [];

  constructor(options: ToolRunsOptions) {
    this.#options = options;
  }

  /** Follows the caller's words in `session`; answers the function that stops. */
  attach(session: ToolRunSession): () => void {
    this.#session = session;
    const stop = listen(session, voice.AgentSessionEventTypes.UserInputTranscribed, (ev) => this.#heard(ev.transcript, ev.isFinal));
    return () => {
      stop();
      this.#session = undefined;
    };
  }

  /** A tool call is running: the call is not idle. */
  get busy(): boolean {
    return this.#running.size > 0;
  }

  /** The transcript's fields for a call cancelled here; undefined for any other. */
  detail(callId: string): Pick<ToolCallEntry, 'cancelled' | 'duration_ms'> | undefined {
    const ranMs = this.#cancelled.get(callId);
    return ranMs === undefined ? undefined : { cancelled: true, duration_ms: ranMs };
  }

  /**
   * Runs one tool call: `work` gets a signal that aborts when the caller takes the turn (or the framework aborts).
   * Throws ToolRunCancelled when the call was cancelled.
   */
  async run<T>(call: ToolRunCall, messages: ToolOut['messages'] | null, work: (signal: AbortSignal) => Promise<ToolRunOutcome<T>>): Promise<T> {
    // A span per call, named for the tool and never carrying its arguments or its result.
    return inSpan('tool_call', { 'tool.name': call.name, 'tool.call_id': call.id }, async (span) => {
      const outcome = await this.#run(call, messages, work).catch((error: unknown) => {
        span.setAttribute('tool.outcome', error instanceof ToolRunCancelled ? 'cancelled' : 'error');
        throw error;
      });
      span.setAttribute('tool.outcome', outcome.failed ? 'failed' : 'ok');
      return outcome.value;
    });
  }

  async #run<T>(
    call: ToolRunCall,
    messages: ToolOut['messages'] | null,
    work: (signal: AbortSignal) => Promise<ToolRunOutcome<T>>,
  ): Promise<ToolRunOutcome<T>> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(call.signal?.reason);
    if (call.signal?.aborted) onAbort();
    call.signal?.addEventListener('abort', onAbort, { once: true });
    if (this.#running.size === 0) this.#heardFinal = this.#heardInterim = '';
    const running: Running = { call, controller, startedAt: Date.now() };
    this.#running.set(call.id, running);
    if (messages?.on_start) this.#speak(messages.on_start, 'on_start');
    const slow = messages?.on_slow ? setTimeout(() => this.#speak(messages.on_slow!, 'on_slow'), messages.slow_after_ms) : undefined;
    try {
      const outcome = await work(controller.signal);
      if (this.#cancelled.has(call.id)) throw new ToolRunCancelled();
      if (outcome.failed && messages?.on_failure) this.#speak(messages.on_failure, 'on_failure');
      return outcome;
    } finally {
      clearTimeout(slow);
      call.signal?.removeEventListener('abort', onAbort);
      this.#running.delete(call.id);
    }
  }

  /**
   * Which of a tool's messages an assistant turn of `text` is, if it is one the calls have said and not yet claimed:
   * the transcript records such a turn as what it is, not as a reply (agent/call/transcript.ts).
   */
  toolMessageOf(text: string): ToolMessageKind | undefined {
    const at = this.#said.findIndex((s) => s.text.trim() === text.trim());
    return at < 0 ? undefined : this.#said.splice(at, 1)[0]!.kind;
  }

  #speak(text: string, kind: ToolMessageKind): void {
    const session = this.#session;
    // Never over the caller; a message that finds them speaking is not said at all (it would only come late).
    if (!session || session.userState === 'speaking') return;
    try {
      speak(session, text, { allowInterruptions: true });
      this.#said.push({ text, kind });
    } catch (error) {
      log().warn({ ...this.#options.logFields, err: error }, 'tool message not spoken');
    }
  }

  #heard(transcript: string, isFinal: boolean): void {
    if (this.#running.size === 0) return;
    if (isFinal) {
      this.#heardFinal = `${this.#heardFinal} ${transcript}`;
      this.#heardInterim = '';
    } else {
      this.#heardInterim = transcript;
    }
    const words = substantiveWords(`${this.#heardFinal} ${this.#heardInterim}`).length;
    if (this.#options.interruptions && words >= Math.max(1, this.#options.minInterruptionWords)) this.#cancelAll();
  }

  #cancelAll(): void {
    const cancellable = [...this.#running.values()].filter((r) => r.call.interruptible && !this.#cancelled.has(r.call.id));
    if (cancellable.length === 0) return;
    for (const running of cancellable) {
      this.#cancelled.set(running.call.id, Date.now() - running.startedAt);
      running.controller.abort(new ToolRunCancelled());
    }
    // The reply waiting for the tools: interrupted, so the framework drops their results and takes the caller's turn.
    try {
      this.#session?.interrupt();
    } catch (error) {
      log().warn({ ...this.#options.logFields, err: error }, 'reply waiting for a cancelled tool not interrupted');
    }
  }
}
