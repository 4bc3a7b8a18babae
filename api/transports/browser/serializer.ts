import { resampleLinear } from '../../../media/pcm.js';

// The built-in browser call's wire format (docs/transports.md), apart from any socket: binary frames are 16 kHz mono
// 16-bit little-endian PCM both ways; text frames are JSON, `hangup` from the browser, `transcript` and `ended` to it.

export const BROWSER_AUDIO_RATE = 16_000;

/** One frame from the browser. */
export type BrowserMessage =
  | { type: 'audio'; samples: Int16Array; sampleRate: number }
  | { type: 'hangup' }
  /** Text that is not a control message we know: ignored, so a newer page still talks to an older server. */
  | { type: 'other' };

export function deserializeBrowserFrame(data: Buffer, isBinary: boolean): BrowserMessage {
  if (isBinary) {
    // A trailing odd byte is half a sample: dropped rather than guessed.
    const samples = new Int16Array(Math.floor(data.length / 2));
    for (let i = 0; i < samples.length; i++) samples[i] = data.readInt16LE(i * 2);
    return { type: 'audio', samples, sampleRate: BROWSER_AUDIO_RATE };
  }
  try {
    if ((JSON.parse(data.toString()) as { type?: unknown } | null)?.type === 'hangup') return { type: 'hangup' };
  } catch {
    // Not JSON: ignored, as an unknown control message is.
  }
  return { type: 'other' };
}

/** The assistant's audio, at any rate, as one binary frame. */
export function serializeAudio(samples: Int16Array, sampleRate: number): Buffer {
  const pcm = resampleLinear(samples, sampleRate, BROWSER_AUDIO_RATE);
  const out = Buffer.alloc(pcm.length * 2);
  for (let i = 0; i < pcm.length; i++) out.writeInt16LE(pcm[i]!, i * 2);
  return out;
}

/** A transcript line; a reply's `latency` is there only when the framework timed it. */
export function serializeTranscript(entry: { role: 'user' | 'assistant'; text: string; latency?: Record<string, number> }): string {
  return JSON.stringify({ type: 'transcript', role: entry.role, text: entry.text, ...(entry.latency ? { latency: entry.latency } : {}) });
}

export function serializeEnded(end: { status: string; endReason: string }): string {
  return JSON.stringify({ type: 'ended', status: end.status, end_reason: end.endReason });
}
