import type { FastifyReply } from 'fastify';
import type { RecordingStorage } from '../../media/recording/storage.js';
import { AppError } from '../../lib/errors.js';
import { HttpError } from './errors.js';

// A call's recording sent as HTTP: whole or one byte range, so a player can seek. The API's download and the
// dashboard's player answer through this one function.

const CONTENT_TYPES: Record<string, string> = { mp3: 'audio/mpeg', wav: 'audio/wav' };

/**
 * A single byte range of an object of `size` bytes (RFC 9110): `bytes=0-99`, `bytes=100-`, `bytes=-100`. Undefined
 * when the header asks for the whole object in a way we serve whole (absent, several ranges, another unit); null when
 * the range cannot be satisfied.
 */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | null | undefined {
  if (!header) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return undefined;
  const [, from, to] = match as unknown as [string, string, string];
  if (from === '' && to === '') return undefined;
  if (from === '') {
    const suffix = Number(to);
    if (suffix === 0 || size === 0) return null;
    return { start: Math.max(size - suffix, 0), end: size - 1 };
  }
  const start = Number(from);
  const end = to === '' ? size - 1 : Math.min(Number(to), size - 1);
  if (start >= size || end < start) return null;
  return { start, end };
}

/** Sends `recording` (whole, or the one range `rangeHeader` asks for), or throws its 404 or 416. */
export async function sendRecording(
  reply: FastifyReply,
  storage: RecordingStorage,
  recording: { storageKey: string; format: string; track: string },
  rangeHeader: string | undefined,
  callSid: string,
) {
  const size = await storage.size(recording.storageKey);
  if (size === null) throw new AppError('not_found', 'Recording file not found');
  const range = parseRange(rangeHeader, size);
  if (range === null) {
    throw new HttpError('range_not_satisfiable', `The recording has ${size} bytes`, undefined, { 'content-range': `bytes */${size}` });
  }
  reply.type(CONTENT_TYPES[recording.format] ?? 'application/octet-stream').header('accept-ranges', 'bytes');
  reply.header('content-disposition', `inline; filename="${callSid}-${recording.track}.${recording.format}"`);
  if (range) {
    return reply
      .status(206)
      .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
      .header('content-length', range.end - range.start + 1)
      .send(storage.read(recording.storageKey, range) as never);
  }
  return reply.header('content-length', size).send(storage.read(recording.storageKey) as never);
}
