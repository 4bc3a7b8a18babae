import { createMp3Encoder } from 'wasm-media-encoders';

/** LAME's input buffer is kept small by feeding it one second at a time. */
const CHUNK_SECONDS = 1;

/** An MP3 encoder fed in pieces, so a long recording is encoded without holding all of it. */
export interface Mp3Stream {
  /** MP3 bytes for these samples (LAME may hold some back until the next call or `finalize`). */
  encode(samples: Int16Array): Buffer;
  /** The bytes LAME still holds; the stream is done after this. */
  finalize(): Buffer;
}

/** Mono 16-bit PCM to MP3 with LAME (WebAssembly). 48 kbit/s CBR: clear speech at ~6 KB per second. */
export async function createMp3Stream(sampleRate: number, bitrateKbps = 48): Promise<Mp3Stream> {
  const encoder = await createMp3Encoder();
  encoder.configure({ sampleRate, channels: 1, bitrate: bitrateKbps as 48 });
  const step = sampleRate * CHUNK_SECONDS;
  return {
    encode(samples) {
      const parts: Buffer[] = [];
      for (let offset = 0; offset < samples.length; offset += step) {
        const chunk = samples.subarray(offset, offset + step);
        const floats = new Float32Array(chunk.length);
        for (let i = 0; i < chunk.length; i++) floats[i] = chunk[i]! / 32768;
        // The encoder's output is a view into its WebAssembly memory, overwritten by the next call: copied.
        parts.push(Buffer.from(encoder.encode([floats])));
      }
      return Buffer.concat(parts);
    },
    finalize() {
      return Buffer.from(encoder.finalize());
    },
  };
}

export async function encodeMp3(samples: Int16Array, sampleRate: number, bitrateKbps = 48): Promise<Buffer> {
  const stream = await createMp3Stream(sampleRate, bitrateKbps);
  return Buffer.concat([stream.encode(samples), stream.finalize()]);
}
