// RIFF/WAVE for 16-bit PCM: what the offline recogniser reads, what espeak-ng writes, and one recording format.

export interface PcmAudio {
  samples: Int16Array;
  sampleRate: number;
  channels: number;
}

const HEADER_BYTES = 44;

export function encodeWav(audio: PcmAudio): Buffer {
  const dataBytes = audio.samples.length * 2;
  return Buffer.concat([wavHeader(dataBytes, audio.sampleRate, audio.channels), Buffer.from(audio.samples.buffer, audio.samples.byteOffset, dataBytes)]);
}

/** The 44-byte header of a 16-bit PCM WAV whose data is `dataBytes` long: written ahead of data streamed after it. */
export function wavHeader(dataBytes: number, sampleRate: number, channels: number): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * channels * 2, 28);
  header.writeUInt16LE(channels * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

/** Reads a 16-bit PCM WAV, walking the chunk list (writers differ in which chunks precede `data`). */
export function decodeWav(bytes: Uint8Array): PcmAudio {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') throw new Error('not a RIFF/WAVE file');
  let offset = 12;
  let sampleRate = 0;
  let channels = 0;
  let bits = 0;
  while (offset + 8 <= buf.length) {
    const id = buf.toString('ascii', offset, offset + 4);
    let size = buf.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      channels = buf.readUInt16LE(body + 2);
      sampleRate = buf.readUInt32LE(body + 4);
      bits = buf.readUInt16LE(body + 14);
    } else if (id === 'data') {
      if (bits !== 16) throw new Error(`unsupported WAV sample size: ${bits}`);
      // Streaming writers leave the size at 0 or 0xffffffff; the data then runs to the end of the file.
      if (size === 0 || body + size > buf.length) size = buf.length - body;
      const copy = Buffer.from(buf.subarray(body, body + size - (size % 2)));
      return { samples: new Int16Array(copy.buffer, copy.byteOffset, copy.length / 2), sampleRate, channels };
    }
    offset = body + size + (size % 2);
  }
  throw new Error('WAV file has no data chunk');
}
