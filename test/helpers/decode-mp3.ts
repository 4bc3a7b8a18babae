import { getFfmpegPath } from '@livekit/av';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

// Decodes an MP3 to 16-bit mono PCM with ffmpeg: the build that @livekit/agents itself installs (`@livekit/av`), or
// LIVEKIT_FFMPEG_PATH, or `ffmpeg` on the PATH. A decoder that is not our encoder, behind a process boundary.

const run = promisify(execFile);

export async function decodeMp3(file: string, sampleRate: number): Promise<Int16Array> {
  const ffmpeg = process.env.LIVEKIT_FFMPEG_PATH || getFfmpegPath() || 'ffmpeg';
  const { stdout } = await run(ffmpeg, ['-v', 'error', '-i', file, '-f', 's16le', '-ac', '1', '-ar', String(sampleRate), '-'], {
    encoding: 'buffer',
    // An hour at 16 kHz is 115 MB; tests decode a few seconds.
    maxBuffer: 64 * 1024 * 1024,
  });
  // Copied: the output buffer need not start on a 2-byte boundary.
  const bytes = Uint8Array.from(stdout);
  return new Int16Array(bytes.buffer, 0, Math.floor(bytes.length / 2));
}
