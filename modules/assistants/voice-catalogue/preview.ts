import { readBounded, type ReadBounds } from './bounded-read.js';

// A voice's preview recording, fetched for the builder's "Play a sample": the page may only play audio from its own
// origin, so the service fetches the recording the catalogue named and hands it on, as audio and nothing else.

/** 10 s and 4 MiB: a preview is a few seconds of speech, 100-500 KB as MP3 and some MB as WAV. */
export const PREVIEW_BOUNDS: ReadBounds = { timeoutMs: 10_000, maxBytes: 4 * 1024 * 1024 };

export interface PreviewAudio {
  contentType: string;
  body: Buffer;
}

const AUDIO_TYPES = new Set([
  'audio/mpeg',
  'audio/mp3',
  'audio/wav',
  'audio/wave',
  'audio/x-wav',
  'audio/ogg',
  'audio/webm',
  'audio/flac',
  'audio/aac',
  'audio/mp4',
]);

/** The audio type of a recording: the one it was served as when that is audio, else the one its first bytes name. */
export function audioTypeOf(contentType: string | null, body: Buffer): string | undefined {
  const declared = contentType?.split(';')[0]?.trim().toLowerCase();
  if (declared && AUDIO_TYPES.has(declared)) return declared;
  // Storage services often serve recordings as plain bytes (application/octet-stream).
  const head = body.subarray(0, 12).toString('latin1');
  if (head.startsWith('RIFF') && head.slice(8, 12) === 'WAVE') return 'audio/wav';
  if (head.startsWith('ID3') || (body[0] === 0xff && ((body[1] ?? 0) & 0xe0) === 0xe0)) return 'audio/mpeg';
  if (head.startsWith('OggS')) return 'audio/ogg';
  if (head.startsWith('fLaC')) return 'audio/flac';
  return undefined;
}

/** The recording at `url`, or undefined when it is not there or not audio. Throws CatalogueReadError as reads do. */
export async function readPreview(http: typeof fetch, url: string, headers: Record<string, string>, bounds: ReadBounds): Promise<PreviewAudio | undefined> {
  const answer = await readBounded(http, url, headers, bounds);
  if (answer.status !== 200 || answer.body.length === 0) return undefined;
  const contentType = audioTypeOf(answer.contentType, answer.body);
  return contentType ? { contentType, body: answer.body } : undefined;
}
