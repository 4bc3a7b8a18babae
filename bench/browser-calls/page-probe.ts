// Runs in the call page before its own script: notes when Start was clicked and, for every buffer of assistant audio
// the page schedules, when it will be heard (on the page's clock) and where its first audible sample is. From these the
// benchmark reads the greeting's delay after Start and any hole in its playout, as the person at the page hears them.

export interface PlayedBuffer {
  /** performance.now() at which the buffer starts playing. */
  at: number;
  /** The AudioContext time it was scheduled at, and its length in seconds: consecutive buffers leave no hole when one starts where the last ended. */
  when: number;
  duration: number;
  /** Milliseconds into the buffer of its first audible sample; null for a silent buffer. */
  firstAudibleMs: number | null;
}

export interface PlaybackLog {
  clickAt: number | null;
  /** When the microphone was granted: the fake microphone's file starts playing then. */
  micAt: number | null;
  buffers: PlayedBuffer[];
}

export const PAGE_PROBE = `(() => {
  const log = (window.playbackLog = { clickAt: null, micAt: null, buffers: [] });
  const getUserMedia = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
  navigator.mediaDevices.getUserMedia = (constraints) => getUserMedia(constraints).then((stream) => { log.micAt = performance.now(); return stream; });
  document.addEventListener('click', (event) => {
    if (event.target && event.target.id === 'start' && log.clickAt === null) log.clickAt = performance.now();
  }, true);
  const start = AudioBufferSourceNode.prototype.start;
  AudioBufferSourceNode.prototype.start = function (when = 0, ...rest) {
    const data = this.buffer.getChannelData(0);
    let first = -1;
    for (let i = 0; i < data.length; i++) if (Math.abs(data[i]) > 0.01) { first = i; break; }
    const now = this.context.currentTime;
    log.buffers.push({
      at: performance.now() + Math.max(when - now, 0) * 1000,
      when: Math.max(when, now),
      duration: this.buffer.duration,
      firstAudibleMs: first < 0 ? null : (first / this.buffer.sampleRate) * 1000,
    });
    return start.call(this, when, ...rest);
  };
})();`;

export interface GreetingPlayout {
  /** Start clicked to the greeting's first audible sample. */
  delayMs: number | null;
  /**
   * Holes in the playout (nothing to play) while the greeting's audio had not all been heard, up to the caller's first
   * words (which may rightly cut the greeting short).
   */
  gapsMs: number[];
}

/** The greeting's delay and the holes in its playout, given how long its audio is and when the caller first spoke after the microphone opened. */
export function greetingPlayout(log: PlaybackLog, greetingAudioMs: number, callerSpeaksAtMs: number): GreetingPlayout {
  const firstIndex = log.buffers.findIndex((b) => b.firstAudibleMs !== null);
  if (log.clickAt === null || firstIndex < 0) return { delayMs: null, gapsMs: [] };
  const first = log.buffers[firstIndex]!;
  const gapsMs: number[] = [];
  let heardMs = first.duration * 1000 - first.firstAudibleMs!;
  let end = first.when + first.duration;
  const callerSpeaksAt = (log.micAt ?? log.clickAt) + callerSpeaksAtMs;
  for (const b of log.buffers.slice(firstIndex + 1)) {
    if (heardMs >= greetingAudioMs - 50 || b.at >= callerSpeaksAt) break;
    const holeMs = (b.when - end) * 1000;
    if (holeMs > 30) gapsMs.push(holeMs);
    heardMs += b.duration * 1000;
    end = Math.max(end, b.when + b.duration);
  }
  return { delayMs: first.at + first.firstAudibleMs! - log.clickAt, gapsMs };
}
