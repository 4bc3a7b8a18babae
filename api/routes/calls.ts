import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { RecordingStorage } from '../../media/recording/storage.js';
import type { PrismaClient } from '../../prisma/client.js';
import { sendRecording } from '../http/recording-response.js';
import {
  Call,
  CallExportQuery,
  CallListQuery,
  CallParams,
  exportCalls,
  findRecording,
  getCall,
  getTranscript,
  listCalls,
  RecordingParams,
  TranscriptTurn,
} from '../../modules/calls/index.js';
import { commonErrors, envelope, ErrorResponse, pagedEnvelope } from '../schemas/common.js';
import { paginationOf } from '../../lib/pagination.js';

const tags = ['Calls'];
const callMissing = { 404: ErrorResponse.describe('No such call in this organisation') };

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
    handler: async (request) => ({
      success: true as const,
      message: 'Call retrieved',
      data: await getCall(prisma, request.identity.organizationId, request.params.call_sid),
    }),
  });

  app.get('/calls/:call_sid/transcript', {
    schema: {
      tags,
      summary: "A call's transcript",
      description: 'Turns in spoken order.',
      params: CallParams,
      response: { 200: envelope(z.array(TranscriptTurn)), ...callMissing, ...commonErrors },
    },
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
      return sendRecording(reply, storage, recording, request.headers.range, request.params.call_sid);
    },
  });
};
