import type { AudioFrame } from '@livekit/rtc-node';
import { Future, voice } from '@livekit/agents';
import { frameLeft } from '../load/process-load.js';

export type PlayedFrameListener = (frame: AudioFrame, playedAt: number) => void;

/**
 * A resumed reply plays its next frame one frame period later, not at once. When a paused reply turns out to be a
 * real interruption, @livekit/agents 1.9 interrupts it and resumes the output in one step (agent_activity), while the
 * clear of the interrupted reply's audio runs on the reply's own task a millisecond later: playing at once on resume
 * released one 20 ms frame of the abandoned reply after every barge-in. A resume that stands costs the caller 20 ms.
 */
export const RESUME_SETTLE_MS = 20;

/**
 * The assistant's audio played out in real time, as a phone line or a browser would consume it. The session may push
 * frames faster than real time; this output releases them at their own pace to its listeners (a transport's socket,
 * the recorder) so that an interruption stops the audio where the caller actually stopped hearing it, and reports
 * playback start, end and position back to the session.
 */
export class PacedAudioOutput extends voice.AudioOutput {
  readonly #listeners = new Set<PlayedFrameListener>();
  readonly #queue: AudioFrame[] = [];
  #queuedMs = 0;
  #timer: NodeJS.Timeout | undefined;
  /** Wall-clock time at which the next queued frame is due. */
  #nextDueAt = 0;
  #drained = new Future<void>();
  #paused = false;
  #resumed = new Future<void>();

  // Segment state, in the manner of the framework's own room output.
  #pushedMs = 0;
  #firstFrameEmitted = false;
  #interruptionGeneration = 0;
  #interrupted = new Future<void>();
  #flushing: Promise<void> | undefined;

  constructor(sampleRate?: number) {
    super(sampleRate, undefined, { pause: true });
    this.#drained.resolve();
    this.#resumed.resolve();
  }

  /** Observes every frame at the moment it plays. */
  onPlayed(listener: PlayedFrameListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  override async captureFrame(frame: AudioFrame): Promise<void> {
    const generation = this.#interruptionGeneration;
    if (this.#flushing) await this.#flushing;
    if (generation !== this.#interruptionGeneration) return;
    await super.captureFrame(frame);
    while (this.#paused && generation === this.#interruptionGeneration) {
      await Promise.race([this.#resumed.await, this.#interrupted.await]);
    }
    if (generation !== this.#interruptionGeneration) return;
    if (!this.#firstFrameEmitted) {
      this.#firstFrameEmitted = true;
      this.onPlaybackStarted(Date.now());
    }
    this.#pushedMs += frameMs(frame);
    this.#enqueue(frame);
  }

  override flush(): void {
    super.flush();
    if (this.#pushedMs === 0 || this.#flushing) return;
    const interrupted = this.#interrupted;
    this.#flushing = this.#waitForPlayout(interrupted).finally(() => {
      this.#flushing = undefined;
    });
  }

  clearBuffer(): void {
    this.#interruptionGeneration++;
    if (this.#interrupted.done || (this.#pushedMs === 0 && this.pendingPlayoutSegments === 0)) return;
    if (!this.#flushing) this.flush();
    if (!this.#interrupted.done) this.#interrupted.resolve();
  }

  override pause(): void {
    if (!this.#paused) {
      this.#paused = true;
      this.#resumed = new Future<void>();
      this.#stopClock();
    }
    super.pause();
  }

  override resume(): void {
    if (this.#paused) {
      this.#paused = false;
      this.#resumed.resolve();
      this.#startClock(RESUME_SETTLE_MS);
    }
    super.resume();
  }

  /** Stops playout for good (end of call); safe to call twice. */
  close(): void {
    this.#stopClock();
    this.#queue.length = 0;
    this.#queuedMs = 0;
    if (!this.#drained.done) this.#drained.resolve();
  }

  async #waitForPlayout(interrupted: Future<void>): Promise<void> {
    await Promise.race([this.#drained.await, interrupted.await]);
    const wasInterrupted = interrupted.done;
    const playedMs = Math.max(this.#pushedMs - (wasInterrupted ? this.#queuedMs : 0), 0);
    if (wasInterrupted) {
      this.#queue.length = 0;
      this.#queuedMs = 0;
      this.#stopClock();
      if (!this.#drained.done) this.#drained.resolve();
    }
    this.#pushedMs = 0;
    this.#firstFrameEmitted = false;
    if (this.#interrupted === interrupted && interrupted.done) this.#interrupted = new Future<void>();
    this.onPlaybackFinished({ playbackPosition: playedMs / 1000, interrupted: wasInterrupted });
  }

  #enqueue(frame: AudioFrame): void {
    this.#queue.push(frame);
    this.#queuedMs += frameMs(frame);
    if (this.#drained.done) this.#drained = new Future<void>();
    if (!this.#timer && !this.#paused) this.#startClock();
  }

  #startClock(settleMs = 0): void {
    if (this.#timer || this.#queue.length === 0) return;
    this.#nextDueAt = Date.now() + settleMs;
    if (settleMs > 0) this.#timer = setTimeout(this.#tick, settleMs);
    else this.#tick();
  }

  #stopClock(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #tick = (): void => {
    this.#timer = undefined;
    if (this.#paused) return;
    const now = Date.now();
    // How late this tick came for its first frame: on a saturated process the timers run late, and this is what the
    // caller hears as gaps (the metric an operator watches, and what the worker's load is judged by).
    if (this.#queue.length > 0 && this.#nextDueAt <= now) frameLeft(now - this.#nextDueAt);
    // Release every frame that is due; after a stall the clock restarts from now rather than bursting to catch up.
    if (now - this.#nextDueAt > 100) this.#nextDueAt = now;
    while (this.#queue.length > 0 && this.#nextDueAt <= now) {
      const frame = this.#queue.shift()!;
      const ms = frameMs(frame);
      this.#queuedMs -= ms;
      for (const listener of this.#listeners) listener(frame, this.#nextDueAt);
      this.#nextDueAt += ms;
    }
    if (this.#queue.length === 0) {
      this.#queuedMs = 0;
      // The last frame is still sounding until its own end.
      const tail = Math.max(this.#nextDueAt - now, 0);
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        if (this.#queue.length === 0) {
          if (!this.#drained.done) this.#drained.resolve();
        } else this.#tick();
      }, tail);
      return;
    }
    this.#timer = setTimeout(this.#tick, Math.max(this.#nextDueAt - Date.now(), 0));
  };
}

function frameMs(frame: AudioFrame): number {
  return (frame.samplesPerChannel * 1000) / frame.sampleRate;
}
