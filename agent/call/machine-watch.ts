import { voice } from '@livekit/agents';
import { decide, DEFAULT_DETECTOR, greetingEnd, type MachineDetectorSettings, type SpeechSegment, type Verdict } from '../../modules/campaigns/machine-detector.js';
import { listen, type SessionEvents } from './session-events.js';

// The answering-machine detector (modules/campaigns/machine-detector.ts) on a live call: the callee side's speech
// segments come from the session's own voice-activity events (the user starts and stops speaking), timed from when
// the watch starts, which is when the callee answered; the detector is asked on every event and every 100 ms. It
// reports its verdict once, and, after a machine, when the greeting has ended.

const CHECK_EVERY_MS = 100;
/** Past this, a greeting that has not ended is not waited for any longer. */
const GIVE_UP_MS = 60_000;

export interface MachineWatch {
  onVerdict(verdict: Verdict): void;
  /** After a `machine` verdict: the greeting has ended (the beep, or the quiet after it). */
  onGreetingEnd(): void;
}

export function watchVoiceForMachine(
  session: SessionEvents<voice.AgentSessionEventTypes.UserStateChanged>,
  watch: MachineWatch,
  settings: MachineDetectorSettings = DEFAULT_DETECTOR,
  clock: () => number = Date.now,
): () => void {
  const answeredAt = clock();
  const segments: SpeechSegment[] = [];
  let verdict: Verdict | null = null;
  let done = false;
  const check = () => {
    if (done) return;
    const now = clock() - answeredAt;
    if (verdict === null) {
      const decision = decide(segments, now, settings);
      if (decision) {
        verdict = decision.verdict;
        watch.onVerdict(verdict);
        if (verdict !== 'machine') return stop();
      }
    }
    if (verdict === 'machine' && greetingEnd(segments, now, settings) !== null) {
      stop();
      watch.onGreetingEnd();
    }
    if (now > GIVE_UP_MS) stop();
  };
  const stopListening = listen(session, voice.AgentSessionEventTypes.UserStateChanged, (ev) => {
    const now = clock() - answeredAt;
    if (ev.newState === 'speaking' && (segments.length === 0 || segments.at(-1)!.end !== undefined)) segments.push({ start: now });
    else if (ev.newState !== 'speaking' && segments.length > 0 && segments.at(-1)!.end === undefined) segments.at(-1)!.end = now;
    check();
  });
  const timer = setInterval(check, CHECK_EVERY_MS);
  timer.unref?.();
  function stop(): void {
    done = true;
    clearInterval(timer);
    stopListening();
  }
  return stop;
}
