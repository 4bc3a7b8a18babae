import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { RecordingStorage } from '../../media/recording/storage.js';
import type { PrismaClient } from '../../prisma/client.js';
import { AppError } from '../../lib/errors.js';
import { HttpError } from '../http/errors.js';
import { Call, CallExportQuery, CallListQuery, CallParams, RecordingParams, TranscriptTurn } from '../../modules/calls/schemas.js';
import { commonErrors, envelope, ErrorResponse, pagedEnvelope } from '../schemas/common.js';
import { paginationOf } from '../../lib/pagination.js';
import { exportCalls } from '../../modules/calls/export.js';
import { findRecording, getCall, getTranscript, listCalls } from '../../modules/calls/read.js';

const tags = ['Calls'];
const callMissing = { 404: ErrorResponse.describe('No such call in this organisation') };
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

export const callRoutes: FastifyPluginAsyncZod<{ prisma: PrismaClient; storage: RecordingStorage }> = async (app, { prisma, storage }) => {
  app.get('/calls', {
    schema: {
      tags,
      summary: 'List calls',
      description: 'Newest first. A repeated filter widens (or), different filters narrow (and). `per_page` defaults to 20, at most 100.',
      querystring: CallListQuery,
      response: { 200: pagedEnvelope(Call), ...commonErrors },
    },
    handler: async (request) => {
      const { page, per_page, ...filters } = request.query;
      const { data, total } = await listCalls(prisma, request.identity.organizationId, filters, page, per_page);
      return { success: true as const, message: 'Calls retrieved', data, pagination: paginationOf(page, per_page, total) };
    },
  });

  app.get('/calls/export', {
    schema: {
      tags,
      summary: 'Export calls',
      description: 'The calls the list filters select, newest first, streamed as CSV (with a header row) or JSON Lines.',
      querystring: CallExportQuery,
      response: { 200: z.string().describe('text/csv or application/x-ndjson'), ...commonErrors },
    },
    handler: async (request, reply) => {
      const { format, ...filters } = request.query;
      const stamp = new Date().toISOString().slice(0, 10);
      return reply
        .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
        .header('content-disposition', `attachment; filename="calls-${stamp}.${format}"`)
        .serializer((x) => x as string)
        .send(exportCalls(prisma, request.identity.organizationId, filters, format) as never);
    },
  });

  app.get('/calls/:call_sid', {
    schema: { tags, summary: 'Get a call', params: CallParams, response: { 200: envelope(Call), ...callMissing, ...commonErrors } },
    handler: async (request) => ({ success: true as const, message: 'Call retrieved', data: await getCall(prisma, request.identity.organizationId, request.params.call_sid) }),
  });

  app.get('/calls/:call_sid/transcript', {
    schema: { tags, summary: "A call's transcript", description: 'Turns in spoken order.', params: CallParams, response: { 200: envelope(z.array(TranscriptTurn)), ...callMissing, ...commonErrors } },
    handler: async (request) => ({
      success: true as const,
      message: 'Transcript retrieved',
      data: await getTranscript(prisma, request.identity.organizationId, request.params.call_sid),
    }),
  });

  app.get('/calls/:call_sid/recordings/:track', {
    schema: {
      tags,
      summary: 'Download a recording',
      description: 'The track as recorded (audio/mpeg or audio/wav). Supports a single HTTP Range.',
      params: RecordingParams,
      response: {
        200: z.string().describe('The audio file'),
        206: z.string().describe('The requested range'),
        416: ErrorResponse.describe('Range not satisfiable'),
        ...callMissing,
        ...commonErrors,
      },
    },
    handler: async (request, reply) => {
      const recording = await findRecording(prisma, request.identity.organizationId, request.params.call_sid, request.params.track);
      const size = await storage.size(recording.storageKey);
      if (size === null) throw new AppError('not_found', 'Recording file not found');
      const range = parseRange(request.headers.range, size);
      if (range === null) {
        throw new HttpError('range_not_satisfiable', `The recording has ${size} bytes`, undefined, { 'content-range': `bytes */${size}` });
      }
      reply.type(CONTENT_TYPES[recording.format] ?? 'application/octet-stream').header('accept-ranges', 'bytes');
      reply.header('content-disposition', `inline; filename="${request.params.call_sid}-${recording.track}.${recording.format}"`);
      if (range) {
        return reply
          .status(206)
          .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
          .header('content-length', range.end - range.start + 1)
          .send(storage.read(recording.storageKey, range) as never);
      }
      return reply.header('content-length', size).send(storage.read(recording.storageKey) as never);
    },
  });
};
