import { createMp3Encoder } from 'wasm-media-encoders';

/** Encodes mono 16-bit PCM to MP3 with LAME (WebAssembly). 48 kbit/s CBR: clear speech at ~6 KB per second. */
export async function encodeMp3(samples: Int16Array, sampleRate: number, bitrateKbps = 48): Promise<Buffer> {
  const encoder = await createMp3Encoder();
  encoder.configure({ sampleRate, channels: 1, bitrate: bitrateKbps as 48 });
  const parts: Buffer[] = [];
  // One second per call keeps the encoder's input buffer small.
  for (let offset = 0; offset < samples.length; offset += sampleRate) {
    const chunk = samples.subarray(offset, offset + sampleRate);
    const floats = new Float32Array(chunk.length);
    for (let i = 0; i < chunk.length; i++) floats[i] = chunk[i]! / 32768;
    parts.push(Buffer.from(encoder.encode([floats])));
  }
  parts.push(Buffer.from(encoder.finalize()));
  return Buffer.concat(parts);
}
