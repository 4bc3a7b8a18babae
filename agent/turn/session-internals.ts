import type { voice } from '@livekit/agents';

// The three things turn-taking needs from a running AgentSession that @livekit/agents 1.9 keeps to itself: the reply
// in progress, pausing it for the caller as the caller's voice does, and resuming it at once. The session exposes its
// activity as `_activity` for code that works with it closely (its own answering-machine detection does); the pause and
// resume are that activity's own methods, the ones its VAD and its false-interruption timer call, so the session's
// state (the paused reply, the agent's state, the timer) stays consistent. test/turns/turn-taking.test.ts fails if an
// upgrade of the framework renames any of them.

interface SpeechHandleView {
  readonly interrupted: boolean;
  readonly allowInterruptions: boolean;
  done(): boolean;
}

interface ActivityView {
  readonly currentSpeech: SpeechHandleView | undefined;
  /** Pauses (or, without resume, interrupts) the reply, as the caller's voice over it does. */
  interruptByAudioActivity(): void;
  /** Resumes a paused reply after `timeout` ms unless the caller's turn is committed first. */
  startFalseInterruptionTimer(timeout: number): void;
  readonly pausedSpeech: { handle: SpeechHandleView } | undefined;
}

function activityOf(session: voice.AgentSession): ActivityView | undefined {
  return session._activity as unknown as ActivityView | undefined;
}

/** The assistant's reply being spoken or paused, if any. */
export function replyInProgress(session: voice.AgentSession): boolean {
  const speech = activityOf(session)?.currentSpeech;
  return speech !== undefined && !speech.done() && !speech.interrupted;
}

/** Pauses the reply in progress for the caller (it resumes if they turn out to say nothing); false if none. */
export function pauseReplyForCaller(session: voice.AgentSession): boolean {
  const activity = activityOf(session);
  const speech = activity?.currentSpeech;
  if (!activity || !speech || speech.done() || speech.interrupted || !speech.allowInterruptions) return false;
  activity.interruptByAudioActivity();
  return true;
}

/** Resumes a reply the caller's voice paused, now rather than after the false-interruption timeout. */
export function resumePausedReply(session: voice.AgentSession): boolean {
  const activity = activityOf(session);
  if (!activity?.pausedSpeech) return false;
  activity.startFalseInterruptionTimer(0);
  return true;
}

/** Whether this framework still has what the functions above use, checked on a session's activity. */
export function internalsPresent(session: voice.AgentSession): boolean {
  const activity = session._activity as unknown as Record<string, unknown> | undefined;
  return (
    activity !== undefined &&
    'currentSpeech' in activity &&
    'pausedSpeech' in activity &&
    typeof activity.interruptByAudioActivity === 'function' &&
    typeof activity.startFalseInterruptionTimer === 'function'
  );
}
