import { voice } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';
import { ToneDetector } from '../../media/tone-detector.js';
import {
  beepBy,
  decide,
  DEFAULT_DETECTOR,
  greetingEnd,
  type HeardBeep,
  type HeardText,
  type MachineDetectorSettings,
  type SpeechSegment,
  type Verdict,
} from '../../modules/campaigns/index.js';
import { listen, type SessionEvents } from './session-events.js';

// The answering-machine detector (modules/campaigns/machine-detector.ts) on a live call: the callee side's speech
// segments come from the session's own voice-activity events (the user starts and stops speaking), its words from the
// recogniser's transcripts, interim and final, and its beeps from its audio, each timed from when the watch starts,
// which is when the callee answered; the detector is asked on every event and every 100 ms. It reports its verdict,
// and, after a machine, when the greeting has ended. A `human` or `unknown` verdict is not the last word: a beep heard
// later (a short greeting taken for a person) turns it into `machine`.

const CHECK_EVERY_MS = 100;
/** Past this, a greeting that has not ended, or a beep after a person's verdict, is not waited for any longer. */
const GIVE_UP_MS = 60_000;

export interface MachineWatch {
  /** Once, and a second time only to turn a `human` or `unknown` verdict into `machine` on a beep. */
  onVerdict(verdict: Verdict): void;
  /** After a `machine` verdict: the greeting has ended, by its beep or by the quiet after it. */
  onGreetingEnd(by: 'beep' | 'silence'): void;
}

export type MachineWatchSession = SessionEvents<voice.AgentSessionEventTypes.UserStateChanged | voice.AgentSessionEventTypes.UserInputTranscribed>;

/** The callee's audio, frame by frame, as the transport hands it to the session. */
export interface CalleeAudio {
  onFrame?(listener: (frame: AudioFrame) => void): () => void;
}

export function watchVoiceForMachine(
  session: MachineWatchSession,
  watch: MachineWatch,
  settings: MachineDetectorSettings = DEFAULT_DETECTOR,
  clock: () => number = Date.now,
  audio: CalleeAudio = {},
): () => void {
  const answeredAt = clock();
  const segments: SpeechSegment[] = [];
  // Each transcript as it came: an interim one is the text of the utterance so far, so a phrase is matched whole.
  const heard: HeardText[] = [];
  const beeps: HeardBeep[] = [];
  const observed = { segments, heard, beeps };
  let verdict: Verdict | null = null;
  let done = false;
  const check = () => {
    if (done) return;
    const now = clock() - answeredAt;
    if (verdict === null) {
      const decision = decide(observed, now, settings);
      if (decision) {
        verdict = decision.verdict;
        watch.onVerdict(verdict);
      }
    } else if (verdict !== 'machine' && beepBy(observed, now)) {
      verdict = 'machine';
      watch.onVerdict(verdict);
    }
    if (verdict === 'machine') {
      const ended = greetingEnd(observed, now, settings);
      if (ended) {
        stop();
        return watch.onGreetingEnd(ended.by);
      }
    }
    if (now > GIVE_UP_MS) stop();
  };
  const stopListening = listen(session, voice.AgentSessionEventTypes.UserStateChanged, (ev) => {
    const now = clock() - answeredAt;
    if (ev.newState === 'speaking' && (segments.length === 0 || segments.at(-1)!.end !== undefined)) segments.push({ start: now });
    else if (ev.newState !== 'speaking' && segments.length > 0 && segments.at(-1)!.end === undefined) segments.at(-1)!.end = now;
    check();
  });
  const stopHearing = listen(session, voice.AgentSessionEventTypes.UserInputTranscribed, (ev) => {
    if (verdict !== null) return;
    heard.push({ at: clock() - answeredAt, text: ev.transcript, final: ev.isFinal });
    check();
  });
  const stopTones = listenForBeeps(audio, answeredAt, clock, beeps, check);
  const timer = setInterval(check, CHECK_EVERY_MS);
  timer.unref?.();
  function stop(): void {
    done = true;
    clearInterval(timer);
    stopListening();
    stopHearing();
    stopTones();
  }
  return stop;
}

/** Feeds the callee's frames to a tone detector, and keeps each beep, timed from the answer, in `beeps`. */
function listenForBeeps(audio: CalleeAudio, answeredAt: number, clock: () => number, beeps: HeardBeep[], changed: () => void): () => void {
  let detector: ToneDetector | undefined;
  let firstFrameAt = 0;
  const stop = audio.onFrame?.((frame) => {
    if (!detector) {
      detector = new ToneDetector(frame.sampleRate);
      // Frames arrive in real time, each once it has been heard whole: the first one's arrival, less its length,
      // places the detector's timeline on the call's.
      firstFrameAt = clock() - answeredAt - (frame.samplesPerChannel * 1000) / frame.sampleRate;
    }
    const samples = frame.channels === 1 ? frame.data : frame.data.filter((_, i) => i % frame.channels === 0);
    const confirmed = detector.push(samples);
    for (const tone of confirmed) beeps.push({ at: firstFrameAt + tone.confirmedAt });
    // The detector's tones and the kept beeps line up one to one; a tone's end is known a frame after it.
    let ended = false;
    detector.tones.forEach((tone, i) => {
      if (tone.end !== undefined && beeps[i]!.end === undefined) {
        beeps[i]!.end = firstFrameAt + tone.end;
        ended = true;
      }
    });
    if (confirmed.length > 0 || ended) changed();
  });
  return stop ?? (() => {});
}
