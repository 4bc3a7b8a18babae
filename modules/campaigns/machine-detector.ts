import { machinePhrase } from './machine-phrases.js';

// Tells a person from an answering machine in the first seconds of an answered call, with no vendor and no model
// beyond what every call already runs: the voice-activity detector, the recogniser, and the caller's audio. Three
// signals:
//
// - **Timing.** A person picks up and says a few words ("Hello?", "Hi, this is Sam") and then waits for an answer; a
//   machine plays a greeting that runs on for several seconds.
// - **Words.** Timing alone cannot tell a business answering with a long greeting ("Good morning, Acme Dental, how can
//   I help you?") from a short voicemail ("Hello. I can't answer right now. Leave a message."); their words can.
//   Voicemail, IVR menus and the network's announcements use a small, stable vocabulary (machine-phrases.ts).
// - **The beep.** A machine that records plays a steady tone first, which no voice makes (media/tone-detector.ts). It
//   is heard only once the greeting has ended, so it rarely decides first; it corrects a short greeting taken for a
//   person ("Hi, leave a message.") and tells exactly when to start speaking.
//
// The decision is the first of:
//
// - `machine` once the recogniser has heard a machine's phrase, or a beep has been heard;
// - `machine` once the opening speech has lasted `machineSpeechMs` (pauses shorter than `pauseMs` are part of it), or,
//   where words are heard (`useWords`), `longSpeechMs`: a person's long greeting ends well before that;
// - `human` once the opening speech, shorter than that, is followed by `pauseMs` of silence; an opening of
//   `machineSpeechMs` or more waits `wordWaitMs` longer, for the recogniser's last words to arrive;
// - `unknown` when nobody has spoken `silenceTimeoutMs` after the answer (dead air: treated as a person).
//
// A live call keeps listening for a beep after a `human` verdict (machine-watch.ts), and turns it into `machine`.
// After a `machine` verdict, the greeting has ended `afterBeepMs` after its beep, or, where no beep is heard, once
// `greetingEndMs` of silence follows the last speech: that is when a message is spoken. The thresholds are chosen and measured on a labelled set
// of openings (`npm run bench:voicemail`, docs/benchmarks.md).

export interface MachineDetectorSettings {
  machineSpeechMs: number;
  pauseMs: number;
  silenceTimeoutMs: number;
  greetingEndMs: number;
  /** Whether the recogniser's words are heard; without them timing alone decides at `machineSpeechMs`. */
  useWords: boolean;
  longSpeechMs: number;
  /** After a long opening, at least this long past the pause before a `human` verdict, for the recogniser's last words. */
  wordWaitMs: number;
  /**
   * And at most this long: past the pause and `wordWaitMs`, a long opening's `human` verdict waits for the recogniser's
   * final words about it (a loaded machine's recogniser runs seconds behind the audio), up to this.
   */
  maxWordWaitMs: number;
  /** After the beep, before speaking: the machine starts recording as its beep ends, and a word cut off is lost. */
  afterBeepMs: number;
}

export const DEFAULT_DETECTOR: MachineDetectorSettings = {
  machineSpeechMs: 2_200,
  pauseMs: 700,
  silenceTimeoutMs: 5_000,
  greetingEndMs: 2_000,
  useWords: true,
  longSpeechMs: 4_200,
  wordWaitMs: 500,
  maxWordWaitMs: 3_000,
  afterBeepMs: 300,
};

export type Verdict = 'human' | 'machine' | 'unknown';

/** Speech of the callee's side, ms from the answer; `end` undefined while it is still speaking. */
export interface SpeechSegment {
  start: number;
  end?: number | undefined;
}

/** What the recogniser has heard of the callee's side (interim or final), and when it arrived (ms from the answer). */
export interface HeardText {
  at: number;
  text: string;
  /** The recogniser's last word on an utterance: it has caught up with the audio up to here. */
  final?: boolean;
}

/** A steady tone heard on the callee's side, ms from the answer; `at` is when it was known to be one. */
export interface HeardBeep {
  at: number;
  end?: number | undefined;
}

/** What the call has observed of the callee's side so far. */
export interface Observed {
  segments: readonly SpeechSegment[];
  heard?: readonly HeardText[] | undefined;
  beeps?: readonly HeardBeep[] | undefined;
}

export interface Decision {
  verdict: Verdict;
  /** ms from the answer at which the verdict was known. */
  at: number;
}

/**
 * The verdict known at `now` (ms from the answer) from the speech and words so far, or null while it is not known yet.
 * Pure: a live call asks it on every voice-activity event, transcript and timer tick, a benchmark on a recorded timeline.
 */
export function decide(observed: Observed, now: number, settings: MachineDetectorSettings = DEFAULT_DETECTOR): Decision | null {
  const byWords = settings.useWords ? observed.heard?.find((h) => h.at <= now && machinePhrase(h.text) !== null) : undefined;
  const byBeep = beepBy(observed, now);
  const byTiming = awaitWords(decideByTiming(observed.segments, now, settings), observed.heard ?? [], now, settings);
  const machineAt = Math.min(byWords?.at ?? Infinity, byBeep?.at ?? Infinity);
  if (machineAt !== Infinity && (!byTiming || machineAt <= byTiming.at)) return { verdict: 'machine', at: machineAt };
  return byTiming;
}

/** The first beep known by `now`. */
export function beepBy(observed: Observed, now: number): HeardBeep | undefined {
  return observed.beeps?.find((b) => b.at <= now);
}

/**
 * A long opening's `human` verdict holds until the recogniser's final words about it have arrived (or `maxWordWaitMs`):
 * a machine's phrase among them, arriving late on a loaded machine, still decides `machine`.
 */
function awaitWords(timing: TimingDecision | null, heard: readonly HeardText[], now: number, settings: MachineDetectorSettings): Decision | null {
  if (!timing || timing.verdict !== 'human' || timing.openingEnd === undefined || !settings.useWords) return timing;
  const caughtUp = heard.find((h) => h.final && h.at >= timing.openingEnd! && h.at <= now);
  const at = caughtUp ? Math.max(timing.at, caughtUp.at) : timing.openingEnd + settings.pauseMs + settings.maxWordWaitMs;
  return at <= now ? { verdict: 'human', at } : null;
}

/** A timing verdict; a long opening's `human` says where the opening ended, for the words about it to be awaited. */
interface TimingDecision extends Decision {
  openingEnd?: number;
}

function decideByTiming(segments: readonly SpeechSegment[], now: number, settings: MachineDetectorSettings): TimingDecision | null {
  if (segments.length === 0) return now >= settings.silenceTimeoutMs ? { verdict: 'unknown', at: settings.silenceTimeoutMs } : null;
  const machineMs = settings.useWords ? settings.longSpeechMs : settings.machineSpeechMs;
  // The opening: the first segment and those that follow it after pauses shorter than `pauseMs`.
  let speech = 0;
  let lastEnd: number | undefined;
  for (const segment of segments) {
    if (lastEnd !== undefined && segment.start - lastEnd >= settings.pauseMs) break;
    const end = segment.end ?? now;
    // Speech reaching the machine threshold decides at the instant it did.
    if (speech + (end - segment.start) >= machineMs) return { verdict: 'machine', at: segment.start + (machineMs - speech) };
    speech += end - segment.start;
    if (segment.end === undefined) return null;
    lastEnd = segment.end;
  }
  if (lastEnd === undefined) return null;
  const long = settings.useWords && speech >= settings.machineSpeechMs;
  const wait = long ? settings.pauseMs + settings.wordWaitMs : settings.pauseMs;
  // Speech resuming within the longer wait is still the opening, after a pause a person would not leave.
  const resumed = segments.find((s) => s.start > lastEnd! && s.start - lastEnd! < wait);
  if (resumed) return { verdict: 'machine', at: resumed.start };
  return now - lastEnd >= wait ? { verdict: 'human', at: lastEnd + wait, ...(long ? { openingEnd: lastEnd } : {}) } : null;
}

export interface GreetingEnd {
  at: number;
  by: 'beep' | 'silence';
}

/** When a machine's greeting has ended (ms from the answer) and how it was known, or null while it may still be going. */
export function greetingEnd(observed: Observed, now: number, settings: MachineDetectorSettings = DEFAULT_DETECTOR): GreetingEnd | null {
  // A beep heard is the greeting's last moment: the greeting ends `afterBeepMs` after it, and the quiet before it, or
  // the quiet counted while it sounds and just after, is not the end (the silence rule would speak over the beep).
  const beep = observed.beeps?.find((b) => b.at <= now);
  if (beep) return beep.end !== undefined && beep.end + settings.afterBeepMs <= now ? { at: beep.end + settings.afterBeepMs, by: 'beep' } : null;
  const last = observed.segments.at(-1);
  if (!last || last.end === undefined) return null;
  return now - last.end >= settings.greetingEndMs ? { at: last.end + settings.greetingEndMs, by: 'silence' } : null;
}
