import { VAD, VADEventType, VADStream, type VADEvent } from '@livekit/agents';
import { measuredSilenceMs } from '../../media/speech-end.js';
import { UtteranceAudio } from './utterance-audio.js';
import { observeVadInference } from '../../lib/metrics/index.js';

// A VAD that reports when speech really ended. The session backdates the caller's last speaking time by the silence
// the VAD reports with its end-of-speech event, then waits the endpointing delay from there; Silero's report comes 1 to
// 70 ms (clean line) or up to ~150 ms (noisy line) short, which every reply would wait on top of the assistant's
// delay. This wraps any VAD and corrects that one figure from the audio the event carries (media/speech-end.ts);
// every other event, and the VAD's own decisions about when speech starts and stops, are left as they are.

/** The most the end of speech is moved earlier than the VAD put it: Silero's lag on a noisy line (~150 ms). */
export const MAX_END_CORRECTION_MS = 160;
/**
 * The most audio counted as waiting to be judged: a VAD further behind than this is a call failing anyway, and a flush
 * racing the backlog must not move an end of speech by more.
 */
const MAX_BACKLOG_MS = 3_000;
/** Below this the trailing silence is too short to read the line's noise floor from (media/speech-end.ts). */
const MIN_MEASURED_SILENCE_MS = 80;
/** Past the end-of-turn model's 200 ms of silence the measure changes nothing the session acts on. */
const MAX_MEASURED_SILENCE_MS = 250;
/** The longest utterance the framework's VAD buffers (60 s) with its pre-roll, and a margin. */
const MAX_UTTERANCE_MS = 61_000;
/** Kept from before an utterance's end for the next one's pre-roll (500 ms in the VAD), with a margin. */
const KEEP_BEFORE_END_MS = 1_000;
/** Enough audio to hold the trailing silence being measured and the speech before it that sets the speech level. */
const RECENT_AUDIO_MS = 1_500;

/** The last `capacityMs` of mono audio, oldest first. */
class RecentAudio {
  #buffer = new Int16Array(0);
  #filled = 0;
  readonly #capacityMs: number;

  constructor(capacityMs: number) {
    this.#capacityMs = capacityMs;
  }

  append(samples: Int16Array, sampleRate: number): void {
    const capacity = Math.round((sampleRate * this.#capacityMs) / 1000);
    if (this.#buffer.length !== capacity) {
      this.#buffer = new Int16Array(capacity);
      this.#filled = 0;
    }
    const incoming = samples.length >= capacity ? samples.subarray(samples.length - capacity) : samples;
    const keep = Math.min(this.#filled, capacity - incoming.length);
    this.#buffer.copyWithin(0, this.#filled - keep, this.#filled);
    this.#buffer.set(incoming, keep);
    this.#filled = keep + incoming.length;
  }

  samples(): Int16Array {
    return this.#buffer.subarray(0, this.#filled);
  }

  clear(): void {
    this.#filled = 0;
  }
}

class SpeechEndStream extends VADStream {
  readonly #inner: VADStream;
  /** The audio the VAD has judged lately, window by window, as its inference events carry it. */
  readonly #recent = new RecentAudio(RECENT_AUDIO_MS);
  /** Audio handed to the inner VAD since its last reset, ms: ahead of what it has judged by up to one window. */
  #forwardedMs = 0;
  /** That audio itself, by position: each utterance event gets its own copy (utterance-audio.ts says why). */
  readonly #audio = new UtteranceAudio();

  constructor(vad: VAD, inner: VADStream) {
    super(vad);
    this.#inner = inner;
    // Frames reach this stream's own input (the base class pumps the session's audio into it) and go on from here,
    // counted: the count is what says how much audio arrived after the last window the VAD judged.
    void this.#forward();
  }

  async #forward(): Promise<void> {
    try {
      for (;;) {
        const { done, value } = await this.inputReader.read();
        if (done) {
          this.#inner.endInput();
          return;
        }
        if (typeof value === 'symbol') {
          this.#forwardedMs = 0;
          this.#audio.reset();
          this.#inner.flush();
        } else {
          this.#forwardedMs += (value.samplesPerChannel * 1000) / value.sampleRate;
          this.#audio.push(value);
          // No utterance is longer than the VAD buffers (60 s and its 500 ms pre-roll).
          this.#audio.forgetBefore(this.#audio.forwarded - Math.round((value.sampleRate * MAX_UTTERANCE_MS) / 1000));
          this.#inner.pushFrame(value);
        }
      }
    } catch {
      // The inner stream was closed under a frame in flight: the session is closing this stream too.
    }
  }

  override async next(): Promise<IteratorResult<VADEvent>> {
    const result = await this.#inner.next();
    if (result.done) return result;
    const event = result.value;
    if (event.type === VADEventType.INFERENCE_DONE) {
      // Counted here rather than from the framework's own VAD metrics, which 1.9 emits only after some thirty starts of
      // speech (its counter advances on START_OF_SPEECH): a call would rarely report any.
      observeVadInference(event.inferenceDuration);
      // Out of speech, only the pre-roll of an utterance yet to start is needed: a silent line keeps a second, not 61.
      if (!event.speaking) this.#forgetBefore(event.timestamp - KEEP_BEFORE_END_MS);
      return { done: false, value: this.#withTrailingSilence(event) };
    }
    if (event.type === VADEventType.START_OF_SPEECH) return { done: false, value: this.#datedStart(this.#withOwnAudio(event)) };
    if (event.type === VADEventType.END_OF_SPEECH) {
      this.#recent.clear();
      const whole = this.#withOwnAudio(event);
      // The next utterance starts after this one ended, its pre-roll at most 500 ms before.
      this.#forgetBefore(event.timestamp - KEEP_BEFORE_END_MS);
      return { done: false, value: this.#corrected(whole) };
    }
    return result;
  }

  /** Forgets the audio before `ms` (since the VAD's last reset). */
  #forgetBefore(ms: number): void {
    const rate = this.#audio.sampleRate;
    if (rate > 0 && ms > 0) this.#audio.forgetBefore(Math.round((ms * rate) / 1000));
  }

  /**
   * The event with a copy of its utterance from the audio handed over: the VAD's own frame is a view of a buffer it
   * reuses at once. The utterance ends where the VAD has judged to (`timestamp`, ms since its reset) and is as long as
   * the frame the VAD gave.
   */
  #withOwnAudio(event: VADEvent): VADEvent {
    const frame = event.frames[0];
    const rate = this.#audio.sampleRate;
    if (!frame || event.frames.length !== 1 || frame.channels !== 1 || frame.sampleRate !== rate) return event;
    const end = Math.round((event.timestamp * rate) / 1000);
    const copy = this.#audio.copy(end - frame.samplesPerChannel, end);
    return copy ? { ...event, frames: [copy] } : event;
  }

  /**
   * The start of speech dated from the audio. The session dates it "now" less the speech and inference durations the
   * event reports; audio received but not yet judged came after the start too, so it is counted in the inference
   * duration (the one figure the session uses only for dating). Otherwise a VAD judging a backlog would date the start
   * of a short utterance after its end, and the session would store its turn without latencies.
   */
  #datedStart(event: VADEvent): VADEvent {
    const pending = this.#pendingMs(event);
    return pending > 0 ? { ...event, inferenceDuration: event.inferenceDuration + pending } : event;
  }

  /**
   * While the caller may have stopped, the silence so far measured to the real end of speech. The session starts the
   * audio end-of-turn model once 200 ms of silence have accumulated; its inference (60 to 150 ms) then decides when the
   * turn can end, so starting it when the caller really has been silent 200 ms, not when Silero agrees, is what keeps
   * it off the reply's path.
   */
  #withTrailingSilence(event: VADEvent): VADEvent {
    const audio = event.frames[0];
    if (!audio || audio.channels !== 1) return event;
    this.#recent.append(audio.data, audio.sampleRate);
    const silence = event.rawAccumulatedSilence;
    const spoken = spokenSoFar(event);
    // The session dates the start of speech as "now" less the speech this event reports; audio waiting to be judged
    // behind it was spoken before now too.
    const rawSpeech = event.rawAccumulatedSpeech > 0 ? event.rawAccumulatedSpeech + this.#pendingMs(event) : event.rawAccumulatedSpeech;
    const base = { ...event, speechDuration: spoken, rawAccumulatedSpeech: rawSpeech };
    if (!event.speaking || silence < MIN_MEASURED_SILENCE_MS || silence >= MAX_MEASURED_SILENCE_MS)
      return spoken === event.speechDuration && rawSpeech === event.rawAccumulatedSpeech ? event : base;
    // The model reads the audio received so far, the part not yet judged included (silence, or speech that a later
    // window will report and that cancels the inference).
    const measured = measuredSilenceMs(this.#recent.samples(), audio.sampleRate, silence, MAX_END_CORRECTION_MS);
    return { ...base, rawAccumulatedSilence: measured + this.#pendingMs(event) };
  }

  /**
   * Audio received since the last window the VAD judged: on a machine that keeps up, less than one 32 ms window and the
   * frame that overfilled it; more when the VAD has fallen behind (a process starved of CPU for a moment, then judging
   * its backlog at once). The session dates speech by "now" less the durations events report, so the backlog is counted
   * in them: otherwise an utterance judged in one burst would seem to end before it started, and its turn would be
   * stored without its latency.
   */
  #pendingMs(event: VADEvent): number {
    // `timestamp` is the audio the VAD has judged since its last reset, ms.
    return Math.min(Math.max(this.#forwardedMs - event.timestamp, 0), MAX_BACKLOG_MS);
  }

  /**
   * The end-of-speech event with its silence counted from the real end of speech, measured on the audio it carries
   * (the utterance up to the last window judged), to the last audio received: the session reads "now" as that.
   */
  #corrected(event: VADEvent): VADEvent {
    const audio = event.frames[0];
    if (!audio || audio.channels !== 1) return event;
    const judged = measuredSilenceMs(audio.data, audio.sampleRate, event.silenceDuration, MAX_END_CORRECTION_MS);
    return { ...event, silenceDuration: judged + this.#pendingMs(event) };
  }

  override close(): void {
    if (this.closed) return;
    this.#inner.close();
    super.close();
  }
}

/**
 * How long the caller has spoken in the utterance so far. Silero's speech duration runs on through the silence after
 * the last word until it declares the end of speech, so a 300 ms "yeah" reached a 500 ms `min_interruption_duration`
 * 200 ms after the caller had stopped, and paused the reply for nothing. The session compares this figure with that
 * setting; the silence since the last voiced window is taken off it.
 */
function spokenSoFar(event: VADEvent): number {
  return event.speaking ? Math.max(event.speechDuration - event.rawAccumulatedSilence, 0) : event.speechDuration;
}

export class SpeechEndVAD extends VAD {
  readonly label: string;
  readonly #inner: VAD;

  constructor(inner: VAD) {
    super(inner.capabilities);
    this.#inner = inner;
    this.label = inner.label;
    // The session reads the VAD's metrics from the VAD it was given.
    inner.on('metrics_collected', (metrics) => this.emit('metrics_collected', metrics));
    // One VAD serves every call of the process with the same window, and each call's session listens for its metrics
    // until it closes: the count follows the concurrent calls (Node would warn from the eleventh), not a leak.
    this.setMaxListeners(0);
  }

  /** The wrapped VAD's silence window: the session checks it against what the audio turn detector needs. */
  override get minSilenceDuration(): number | null {
    return this.#inner.minSilenceDuration;
  }

  stream(): VADStream {
    return new SpeechEndStream(this, this.#inner.stream());
  }

  override async close(): Promise<void> {
    await this.#inner.close();
  }
}
