// The statuses of a call and the sets the lifecycle (lifecycle.ts) moves it between. A call begins in one of the
// statuses before its start, moves to `in_progress` when its conversation starts, and ends in a terminal status; it
// can also end straight from before its start (busy, unanswered, never connected). Nothing moves a terminal call.

/** Before the conversation starts: queued for a dialler or a browser, claimed by a dialler, ringing. */
export const NOT_STARTED = ['queued', 'initiated', 'ringing'] as const;
/** Claimed by a dialler and not yet answered: the room, the dispatch and the SIP participant are under way. */
export const DIALLING = ['initiated', 'ringing'] as const;
export const IN_PROGRESS = 'in_progress';
/** Final: a call in one of these is never moved again. */
export const TERMINAL = ['completed', 'failed', 'busy', 'no_answer', 'voicemail', 'canceled'] as const;

/** Every status a call can be in, in the order it can pass through them. */
export const CALL_STATUSES = [...NOT_STARTED, IN_PROGRESS, ...TERMINAL] as const;

export type CallStatus = (typeof CALL_STATUSES)[number];
/** How a call ends whose conversation never started. */
export type UnstartedEnd = Exclude<(typeof TERMINAL)[number], 'completed'>;
/** How a conversation that started ends. */
export type FinishedEnd = 'completed' | 'failed';
