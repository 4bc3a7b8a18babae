import { log, voice } from '@livekit/agents';
import { CallNotRunnableError } from '../../modules/calls/index.js';
import { MissingCredentialsError, VendorTargetRefusedError } from './session-config.js';
import { listen, type SessionEvents } from './session-events.js';

// A call ends once, for the first reason that comes: the caller hangs up (or the worker shuts down), the session
// closes (by itself, or on a vendor's failure), the call runs past its longest duration, it idles out
// (agent/call/idle-prompts.ts), or it could not start at all. Whatever comes later is too late and changes nothing.

/** A call longer than this is ended (`max_duration`); a forgotten open line must not run for days. */
export const DEFAULT_MAX_CALL_DURATION_MS = 60 * 60 * 1000;
/** The end reason of a call whose STT, TTS or every LLM lacks its key (or a custom LLM its address). */
export const MISSING_CREDENTIALS = 'missing_credentials';
/** The assistant's vendor URL leads to a loopback, private or reserved address the operator has not allowed. */
export const VENDOR_TARGET_REFUSED = 'vendor_target_refused';
/** How long the goodbye or apology may take to play before the line is closed anyway. */
export const FINAL_PLAYOUT_TIMEOUT_MS = 15_000;

export interface Ending {
  status: 'completed' | 'failed';
  reason: string;
  /** The caller hears the offline apology before the line closes (agent/call/apology.ts). */
  apology?: boolean;
}

export class CallEnding {
  /** The first ending, once there is one. */
  readonly settled: Promise<Ending>;
  #resolve!: (ending: Ending) => void;
  #ended = false;

  constructor() {
    this.settled = new Promise<Ending>((resolve) => (this.#resolve = resolve));
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Ends the call, unless it has ended already. */
  end(ending: Ending): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#resolve(ending);
  }
}

export interface EndingWatch {
  /** Aborted when the caller hangs up (reason `customer_hangup`); a string reason is the end reason instead. */
  signal?: AbortSignal | undefined;
  maxDurationMs?: number | undefined;
  /** Fields that name the call in the log. */
  logFields?: Record<string, unknown>;
}

/**
 * Ends the call when its session closes, when `signal` aborts, or after the longest duration; logs a vendor's
 * unrecoverable error. Answers a function that stops watching.
 */
export function watchForEnd(
  session: SessionEvents<voice.AgentSessionEventTypes.Close | voice.AgentSessionEventTypes.Error>,
  ending: CallEnding,
  watch: EndingWatch = {},
): () => void {
  const { signal } = watch;
  const stops = [
    listen(session, voice.AgentSessionEventTypes.Close, (ev) => {
      if (ev.error) ending.end({ status: 'failed', reason: `${ev.error.type}`, apology: true });
      else ending.end({ status: 'completed', reason: 'session_closed' });
    }),
    listen(session, voice.AgentSessionEventTypes.Error, (ev) => {
      if (!ev.error || (ev.error as { recoverable?: boolean }).recoverable) return;
      log().warn({ ...watch.logFields, type: (ev.error as { type?: string }).type }, 'vendor error in call');
    }),
  ];
  // The transport aborts with no reason when the caller hangs up; the worker aborts with its own reason on shutdown.
  const hangup = () => ending.end({ status: 'completed', reason: typeof signal?.reason === 'string' ? signal.reason : 'customer_hangup' });
  if (signal) {
    signal.addEventListener('abort', hangup, { once: true });
    stops.push(() => signal.removeEventListener('abort', hangup));
    if (signal.aborted) hangup();
  }
  const maxDuration = setTimeout(() => ending.end({ status: 'completed', reason: 'max_duration' }), watch.maxDurationMs ?? DEFAULT_MAX_CALL_DURATION_MS);
  stops.push(() => clearTimeout(maxDuration));
  return () => {
    for (const stop of stops) stop();
  };
}

/**
 * Runs the steps of a call's start in order. The first step that throws ends the call with its reason
 * (`startFailure`) and every later step is skipped; a skipped or failed step answers undefined.
 */
export function startSteps(ending: CallEnding, logFields: Record<string, unknown> = {}): <T>(step: () => T | Promise<T>) => Promise<T | undefined> {
  let failed = false;
  return async (step) => {
    if (failed) return undefined;
    try {
      return await step();
    } catch (error) {
      failed = true;
      ending.end(startFailure(error, logFields));
      return undefined;
    }
  };
}

/** The ending of a call that could not start, logged with its cause; the caller hears the apology. */
export function startFailure(error: unknown, logFields: Record<string, unknown> = {}): Ending {
  if (error instanceof MissingCredentialsError) {
    // Names of variables and settings only, never a value.
    log().warn(
      { ...logFields, stages: error.stages, variables: error.missing.map((m) => m.variable), fields: error.missing.map((m) => m.field) },
      'call cannot start: a vendor credential is not set',
    );
    return { status: 'failed', reason: MISSING_CREDENTIALS, apology: true };
  }
  if (error instanceof VendorTargetRefusedError) {
    // The fields only: a URL can carry a token in its path or query.
    log().warn({ ...logFields, fields: error.fields }, 'call cannot start: a vendor URL leads to an address the service does not call');
    return { status: 'failed', reason: VENDOR_TARGET_REFUSED, apology: true };
  }
  log().error({ ...logFields, err: error }, 'call could not start');
  return { status: 'failed', reason: error instanceof CallNotRunnableError ? error.message.replace(/\s+/g, '_') : 'configuration_error', apology: true };
}
