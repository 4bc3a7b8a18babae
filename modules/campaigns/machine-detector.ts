// Tells a person from an answering machine by the shape of what the callee side says first, with no vendor and no
// model beyond the voice-activity detector every call already runs: a person picks up and says a few words ("Hello?",
// "Hi, this is Sam") and then waits for an answer; a machine plays a greeting that runs on for several seconds. The
// decision is the first of:
//
// - `machine` once the opening speech has lasted `machineSpeechMs` (pauses shorter than `pauseMs` are part of it);
// - `human` once the opening speech, shorter than that, is followed by `pauseMs` of silence;
// - `unknown` when nobody has spoken `silenceTimeoutMs` after the answer (dead air: treated as a person).
//
// After a `machine` verdict, the greeting has ended (the beep, or the quiet after it) once `greetingEndMs` of silence
// follows the last speech: that is when a message is spoken. The thresholds are chosen and measured on a labelled set
// of openings (`npm run bench:voicemail`, docs/benchmarks.md).

export interface MachineDetectorSettings {
  machineSpeechMs: number;
  pauseMs: number;
  silenceTimeoutMs: number;
  greetingEndMs: number;
}

export const DEFAULT_DETECTOR: MachineDetectorSettings = { machineSpeechMs: 2_200, pauseMs: 900, silenceTimeoutMs: 5_000, greetingEndMs: 2_000 };

export type Verdict = 'human' | 'machine' | 'unknown';

/** Speech of the callee's side, ms from the answer; `end` undefined while it is still speaking. */
export interface SpeechSegment {
  start: number;
  end?: number | undefined;
}

export interface Decision {
  verdict: Verdict;
  /** ms from the answer at which the verdict was known. */
  at: number;
}

/**
 * The verdict known at `now` (ms from the answer) from the speech so far, or null while it is not known yet. Pure: a
 * live call asks it on every voice-activity event and on a timer, a benchmark on a recorded timeline.
 */
export function decide(segments: readonly SpeechSegment[], now: number, settings: MachineDetectorSettings = DEFAULT_DETECTOR): Decision | null {
  if (segments.length === 0) return now >= settings.silenceTimeoutMs ? { verdict: 'unknown', at: settings.silenceTimeoutMs } : null;
  // The opening: the first segment and those that follow it after pauses shorter than `pauseMs`.
  let speech = 0;
  let lastEnd: number | undefined;
  for (const segment of segments) {
    if (lastEnd !== undefined && segment.start - lastEnd >= settings.pauseMs) break;
    const end = segment.end ?? now;
    // Speech reaching the machine threshold decides at the instant it did.
    if (speech + (end - segment.start) >= settings.machineSpeechMs) return { verdict: 'machine', at: segment.start + (settings.machineSpeechMs - speech) };
    speech += end - segment.start;
    if (segment.end === undefined) return null;
    lastEnd = segment.end;
  }
  if (lastEnd !== undefined && now - lastEnd >= settings.pauseMs) return { verdict: 'human', at: lastEnd + settings.pauseMs };
  return null;
}

/** When a machine's greeting has ended (ms from the answer), or null while it may still be going. */
export function greetingEnd(segments: readonly SpeechSegment[], now: number, settings: MachineDetectorSettings = DEFAULT_DETECTOR): number | null {
  const last = segments.at(-1);
  if (!last || last.end === undefined) return null;
  return now - last.end >= settings.greetingEndMs ? last.end + settings.greetingEndMs : null;
}
