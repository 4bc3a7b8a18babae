import { VAD, VADEventType, VADStream, type VADEvent } from '@livekit/agents';
import { measuredSilenceMs } from '../media/speech-end.js';

// A VAD that reports when speech really ended. The session backdates the caller's last speaking time by the silence
// the VAD reports with its end-of-speech event, then waits the endpointing delay from there; Silero's report comes 1 to
// 70 ms (clean line) or up to ~150 ms (noisy line) short, which every reply would wait on top of the assistant's
// delay. This wraps any VAD and corrects that one figure from the audio the event carries (media/speech-end.ts);
// every other event, and the VAD's own decisions about when speech starts and stops, are left as they are.

/** The most the end of speech is moved earlier than the VAD put it: Silero's lag on a noisy line (~150 ms). */
export const MAX_END_CORRECTION_MS = 160;
/** Audio received but not yet judged is less than one inference window (32 ms) and the frame that overfilled it. */
const MAX_PENDING_MS = 64;

class SpeechEndStream extends VADStream {
  readonly #inner: VADStream;
  /** Audio handed to the inner VAD since its last reset, ms: ahead of what it has judged by up to one window. */
  #forwardedMs = 0;

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
          this.#inner.flush();
        } else {
          this.#forwardedMs += (value.samplesPerChannel * 1000) / value.sampleRate;
          this.#inner.pushFrame(value);
        }
      }
    } catch {
      // The inner stream was closed under a frame in flight: the session is closing this stream too.
    }
  }

  override async next(): Promise<IteratorResult<VADEvent>> {
    const result = await this.#inner.next();
    if (result.done || result.value.type !== VADEventType.END_OF_SPEECH) return result;
    return { done: false, value: this.#corrected(result.value) };
  }

  /**
   * The end-of-speech event with its silence counted from the real end of speech, measured on the audio it carries
   * (the utterance up to the last window judged), to the last audio received: the session reads "now" as that.
   */
  #corrected(event: VADEvent): VADEvent {
    const audio = event.frames[0];
    if (!audio || audio.channels !== 1) return event;
    const judged = measuredSilenceMs(audio.data, audio.sampleRate, event.silenceDuration, MAX_END_CORRECTION_MS);
    // `timestamp` is the audio the VAD has judged since its last reset, ms; less than one 32 ms window can be pending.
    const pending = Math.min(Math.max(this.#forwardedMs - event.timestamp, 0), MAX_PENDING_MS);
    return { ...event, silenceDuration: judged + pending };
  }

  override close(): void {
    if (this.closed) return;
    this.#inner.close();
    super.close();
  }
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
