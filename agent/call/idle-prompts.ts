import { voice } from '@livekit/agents';
import { settledWithin } from '../../lib/async.js';
import { DEFAULT_IDLE_MESSAGE, type AssistantSettings } from '../../modules/assistants/index.js';
import { FINAL_PLAYOUT_TIMEOUT_MS, type CallEnding } from './ending.js';
import { listen, type SessionEvents } from './session-events.js';
import { secondsToMs } from './session-config.js';
import { speak } from './speak.js';

// After `idle_timeout` of silence from both sides the assistant asks whether the caller is still there, up to
// `max_idle_messages` times; when the last prompt goes unanswered it says goodbye and ends the call (`idle_timeout`).
// The caller speaking again starts the count over.

/** Said before hanging up after the last idle prompt went unanswered. */
export const IDLE_GOODBYE = "It seems you're no longer there, so I'll end the call now. Goodbye!";
/** Idle prompts when `idle_timeout` is set and `max_idle_messages` is not. */
export const DEFAULT_MAX_IDLE_MESSAGES = 1;
/** How often the silence is measured: a prompt comes at most this late, against an idle_timeout of a second or more. */
const CHECK_INTERVAL_MS = 100;
/**
 * How long words the caller has just said may await the assistant before the call can idle again. Between the end of
 * the caller's speech and the assistant thinking come the final transcript and the end-of-turn decision, quick on an
 * idle machine but seconds on a starved one: asking "are you still there?" then answers a caller who has just spoken.
 * Words that never become a turn (a cough the recogniser makes nothing of) stop holding the count after this.
 */
export const PENDING_TURN_MAX_MS = 5_000;

export interface IdleSession extends SessionEvents<voice.AgentSessionEventTypes.AgentStateChanged | voice.AgentSessionEventTypes.UserStateChanged> {
  readonly agentState: voice.AgentState;
  readonly userState: voice.UserState;
  say(text: string, options: { allowInterruptions: boolean }): { waitForPlayout(): Promise<void> };
  readonly tts?: unknown;
  generateReply?(options: { instructions: string; allowInterruptions: boolean; toolChoice: 'none' }): { waitForPlayout(): Promise<void> };
}

export interface IdlePrompts {
  idleMs: number;
  maxPrompts: number;
  /** The prompt, already rendered. */
  message: string;
}

/** What the settings ask for; null when `idle_timeout` is unset, and the call never idles out. */
export function idlePromptsOf(settings: Pick<AssistantSettings, 'idle_timeout' | 'max_idle_messages'>, message: string): IdlePrompts | null {
  if (settings.idle_timeout === null) return null;
  return {
    idleMs: secondsToMs(settings.idle_timeout),
    maxPrompts: settings.max_idle_messages ?? DEFAULT_MAX_IDLE_MESSAGES,
    message: message || DEFAULT_IDLE_MESSAGE,
  };
}

/**
 * Prompts an idle caller until `stop` is called or the call ends. While `busy` (a tool call is running), or while words
 * the caller has just said await the reply, the call is not idle, whatever was last said: the caller is waiting for the
 * assistant, not the other way round.
 */
export function startIdlePrompts(
  session: IdleSession,
  ending: Pick<CallEnding, 'end' | 'ended'>,
  idle: IdlePrompts,
  busy: () => boolean = () => false,
): () => void {
  let prompts = 0;
  let quietSince = Date.now();
  let saidGoodbye = false;
  /** When the caller last stopped speaking, while the assistant has not yet taken their words up. */
  let turnPendingSince: number | undefined;
  const activity = () => void (quietSince = Date.now());
  const stops = [
    listen(session, voice.AgentSessionEventTypes.AgentStateChanged, (ev) => {
      activity();
      if (ev.newState === 'thinking' || ev.newState === 'speaking') turnPendingSince = undefined;
    }),
    listen(session, voice.AgentSessionEventTypes.UserStateChanged, (ev) => {
      activity();
      if (ev.newState === 'speaking') prompts = 0;
      turnPendingSince = ev.oldState === 'speaking' ? Date.now() : undefined;
    }),
  ];
  const check = setInterval(() => {
    const turnPending = turnPendingSince !== undefined && Date.now() - turnPendingSince < PENDING_TURN_MAX_MS;
    if (busy() || turnPending) quietSince = Date.now();
    if (saidGoodbye || ending.ended || session.agentState !== 'listening' || session.userState === 'speaking' || Date.now() - quietSince < idle.idleMs) return;
    quietSince = Date.now();
    if (prompts < idle.maxPrompts) {
      prompts++;
      speak(session, idle.message, { allowInterruptions: true });
      return;
    }
    saidGoodbye = true;
    const goodbye = speak(session, IDLE_GOODBYE, { allowInterruptions: false });
    void settledWithin(goodbye.waitForPlayout(), FINAL_PLAYOUT_TIMEOUT_MS).then(() => ending.end({ status: 'completed', reason: 'idle_timeout' }));
  }, CHECK_INTERVAL_MS);
  return () => {
    clearInterval(check);
    for (const stop of stops) stop();
  };
}
