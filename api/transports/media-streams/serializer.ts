import { decodeMulaw, encodeMulaw } from '../../../media/mulaw.js';
import { resampleLinear } from '../../../media/pcm.js';

// The Media Streams wire format (Twilio's, which other carriers copy), apart from any socket: JSON text messages whose
// audio is base64 G.711 mu-law at 8 kHz. Carriers send `connected`, `start`, `media`, `mark` (a mark of ours played
// out) and `stop`; we send `media`, `mark` and `clear` (drop the audio not yet played).

export const CARRIER_RATE = 8000;
/** 20 ms at 8 kHz, one byte per sample: the frame carriers send and expect. */
export const FRAME_BYTES = 160;

/** One message from the carrier, its audio decoded to PCM at the rate the call runs at. */
export type CarrierMessage =
  | { event: 'connected' }
  /** `customParameters` are the `<Parameter>`s of the TwiML `<Stream>` that opened the socket. */
  | { event: 'start'; streamSid: string; callSid: string; customParameters: Record<string, string> }
  | { event: 'media'; samples: Int16Array; sampleRate: number }
  | { event: 'mark'; name: string }
  | { event: 'stop' }
  /** `dtmf`, and whatever a carrier adds later: nothing to do with it, and no reason to drop the call. */
  | { event: 'other' };

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** Parses one text message from the carrier; null when it is not a JSON object, which no carrier sends. */
export function deserializeCarrierMessage(data: string, sampleRate: number): CarrierMessage | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const message = parsed as Record<string, unknown>;
  switch (message.event) {
    case 'connected':
      return { event: 'connected' };
    case 'start': {
      const start = record(message.start);
      const parameters = Object.entries(record(start.customParameters)).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
      return { event: 'start', streamSid: text(start.streamSid), callSid: text(start.callSid), customParameters: Object.fromEntries(parameters) };
    }
    case 'media': {
      const pcm = decodeMulaw(Buffer.from(text(record(message.media).payload), 'base64'));
      return { event: 'media', samples: resampleLinear(pcm, CARRIER_RATE, sampleRate), sampleRate };
    }
    case 'mark':
      return { event: 'mark', name: text(record(message.mark).name) };
    case 'stop':
      return { event: 'stop' };
    default:
      return { event: 'other' };
  }
}

/**
 * The messages we send on one stream. Audio goes out in whole 20 ms frames: the remainder of a chunk waits for the next,
 * so a carrier never receives a short frame mid-speech.
 */
export class MediaStreamSerializer {
  #pending = new Uint8Array(0);

  constructor(readonly streamSid: string) {}

  /** The `media` messages for PCM at `sampleRate`: as many whole frames as the audio so far fills. */
  audio(samples: Int16Array, sampleRate: number): string[] {
    const encoded = encodeMulaw(resampleLinear(samples, sampleRate, CARRIER_RATE));
    const joined = new Uint8Array(this.#pending.length + encoded.length);
    joined.set(this.#pending);
    joined.set(encoded, this.#pending.length);
    const messages: string[] = [];
    let offset = 0;
    for (; offset + FRAME_BYTES <= joined.length; offset += FRAME_BYTES) {
      const payload = Buffer.from(joined.subarray(offset, offset + FRAME_BYTES)).toString('base64');
      messages.push(JSON.stringify({ event: 'media', streamSid: this.streamSid, media: { payload } }));
    }
    this.#pending = joined.slice(offset);
    return messages;
  }

  /** A `mark` the carrier echoes back once every frame sent before it has played. */
  mark(name: string): string {
    return JSON.stringify({ event: 'mark', streamSid: this.streamSid, mark: { name } });
  }

  /** A `clear`: the carrier drops what it has not played yet, and the partial frame kept here goes with it. */
  clear(): string {
    this.#pending = new Uint8Array(0);
    return JSON.stringify({ event: 'clear', streamSid: this.streamSid });
  }
}
