// Duration of an MP3 by walking its frame headers (MPEG-1/2/2.5 Layer III). Used to check recordings and to report
// the duration of a stored file without decoding it.

const BITRATES_V1 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const BITRATES_V2 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

export interface Mp3Info {
  frames: number;
  sampleRate: number;
  durationMs: number;
}

export function mp3Info(bytes: Uint8Array): Mp3Info {
  let offset = 0;
  let frames = 0;
  let samples = 0;
  let sampleRate = 0;
  // An ID3v2 tag, when present, precedes the first frame.
  if (bytes[0] === 0x49 && bytes[1] === 0x44 && bytes[2] === 0x33) {
    offset = 10 + (((bytes[6]! & 0x7f) << 21) | ((bytes[7]! & 0x7f) << 14) | ((bytes[8]! & 0x7f) << 7) | (bytes[9]! & 0x7f));
  }
  while (offset + 4 <= bytes.length) {
    const b1 = bytes[offset + 1]!;
    const b2 = bytes[offset + 2]!;
    if (bytes[offset] !== 0xff || (b1 & 0xe0) !== 0xe0) {
      offset++;
      continue;
    }
    const version = (b1 >> 3) & 0x03;
    const layer = (b1 >> 1) & 0x03;
    const bitrateIndex = (b2 >> 4) & 0x0f;
    const rateIndex = (b2 >> 2) & 0x03;
    const padding = (b2 >> 1) & 0x01;
    const rates = RATES[version];
    if (layer !== 1 || !rates || rateIndex === 3 || bitrateIndex === 0 || bitrateIndex === 15) {
      offset++;
      continue;
    }
    const rate = rates[rateIndex]!;
    const v1 = version === 3;
    const bitrate = (v1 ? BITRATES_V1 : BITRATES_V2)[bitrateIndex]! * 1000;
    const size = Math.floor(((v1 ? 144 : 72) * bitrate) / rate) + padding;
    sampleRate = rate;
    frames++;
    samples += v1 ? 1152 : 576;
    offset += size;
  }
  return { frames, sampleRate, durationMs: sampleRate ? Math.round((samples * 1000) / sampleRate) : 0 };
}
