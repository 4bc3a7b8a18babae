import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PrismaClient } from '../../prisma/client.js';
import { paginationOf } from '../../lib/pagination.js';
import { commonErrors, envelope, ErrorResponse, pagedEnvelope, pageQuery } from '../schemas/common.js';
import {
  Chart,
  ChartParams,
  ChartQuery,
  ChartResult,
  ChartWrite,
  createChart,
  deleteChart,
  exportChart,
  ExportQuery,
  getChart,
  listCharts,
  PeriodOverride,
  replaceChart,
  runChart,
  runChartQuery,
} from '../../modules/analytics/index.js';
import { getPriceTable, PriceOverrides, PriceTable, replacePriceOverrides } from '../../modules/calls/index.js';

// Analytics (docs/analytics.md): saved charts, running them with an optional period override, ad-hoc queries of the
// same shape, exports, and the price table calls are costed with.

const tags = ['Analytics'];
const missing = { 404: ErrorResponse.describe('No such chart in this organisation') };

export const analyticsRoutes: FastifyPluginAsyncZod<{ prisma: PrismaClient }> = async (app, { prisma }) => {
  app.get('/analytics/charts', {
    schema: {
      tags,
      summary: 'List charts',
      description:
        'Oldest first. An organisation starts with the default set (volume, minutes, cost by component, answer rate, latency percentiles, end reasons, top outcomes).',
      querystring: pageQuery,
      response: { 200: pagedEnvelope(Chart), ...commonErrors },
    },
    handler: async (request) => {
      const { page, per_page } = request.query;
      const { data, total } = await listCharts(prisma, request.identity.organizationId, page, per_page);
      return { success: true as const, message: 'Charts retrieved', data, pagination: paginationOf(page, per_page, total) };
    },
  });

  app.post('/analytics/charts', {
    schema: {
      tags,
      summary: 'Save a chart',
      body: ChartWrite,
      response: { 201: envelope(Chart), 409: ErrorResponse.describe('`limit_reached`: the organisation keeps 500 charts'), ...commonErrors },
    },
    handler: async (request, reply) => {
      const data = await createChart(prisma, request.identity.organizationId, request.body);
      return reply.status(201).send({ success: true as const, message: 'Chart created', data });
    },
  });

  app.get('/analytics/charts/:chart_id', {
    schema: { tags, summary: 'Get a chart', params: ChartParams, response: { 200: envelope(Chart), ...missing, ...commonErrors } },
    handler: async (request) => ({
      success: true as const,
      message: 'Chart retrieved',
      data: await getChart(prisma, request.identity.organizationId, request.params.chart_id),
    }),
  });

  app.put('/analytics/charts/:chart_id', {
    schema: {
      tags,
      summary: 'Replace a chart',
      description: 'The whole chart, as at creation.',
      params: ChartParams,
      body: ChartWrite,
      response: { 200: envelope(Chart), ...missing, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Chart updated',
      data: await replaceChart(prisma, request.identity.organizationId, request.params.chart_id, request.body),
    }),
  });

  app.delete('/analytics/charts/:chart_id', {
    schema: { tags, summary: 'Delete a chart', params: ChartParams, response: { 204: z.undefined().describe('Deleted'), ...missing, ...commonErrors } },
    handler: async (request, reply) => {
      await deleteChart(prisma, request.identity.organizationId, request.params.chart_id);
      return reply.status(204).send();
    },
  });

  app.post('/analytics/charts/:chart_id/query', {
    schema: {
      tags,
      summary: "Run a chart's query",
      description:
        'Runs the saved chart over its own period and time zone. No body is needed; a body `{period, timezone}` runs it over another period (`{preset}` or `{from, to}`) or in another time zone, leaving the chart unchanged. The answer names the period and time zone it used.',
      params: ChartParams,
      body: PeriodOverride.optional(),
      response: { 200: envelope(ChartResult), ...missing, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Chart query executed',
      data: await runChart(prisma, request.identity.organizationId, request.params.chart_id, request.body ?? {}),
    }),
  });

  app.get('/analytics/charts/:chart_id/export', {
    schema: {
      tags,
      summary: "Export a chart's result",
      description:
        'The chart run as its query would be, as CSV (one row per series and point) or the JSON of the query answer, as an attachment. `preset`, or `from` and `to`, and `timezone` override the saved ones.',
      params: ChartParams,
      querystring: ExportQuery,
      response: { 200: z.string().describe('text/csv or application/json'), ...missing, ...commonErrors },
    },
    handler: async (request, reply) => {
      const { format, override } = request.query;
      const file = await exportChart(prisma, request.identity.organizationId, request.params.chart_id, override, format);
      return reply
        .type(file.contentType)
        .header('content-disposition', `attachment; filename="${file.fileName}"`)
        .serializer((x) => x as string)
        .send(file.body);
    },
  });

  app.post('/analytics/query', {
    schema: {
      tags,
      summary: 'Run an ad-hoc query',
      description: "A chart's query without saving it: the same fields and the same answer as running a saved chart.",
      body: ChartQuery,
      response: { 200: envelope(ChartResult), ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Query executed',
      data: await runChartQuery(prisma, request.identity.organizationId, request.body),
    }),
  });

  app.get('/analytics/prices', {
    schema: {
      tags,
      summary: 'Read the price table',
      description: "The defaults and the organisation's overrides, in US dollars.",
      response: { 200: envelope(PriceTable), ...commonErrors },
    },
    handler: async (request) => ({ success: true as const, message: 'Prices retrieved', data: await getPriceTable(prisma, request.identity.organizationId) }),
  });

  app.put('/analytics/prices', {
    schema: {
      tags,
      summary: "Replace the organisation's price overrides",
      description: 'Calls that end from now on are costed with them; calls already ended keep their cost. An empty list restores the defaults.',
      body: PriceOverrides,
      response: { 200: envelope(PriceTable), ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Prices updated',
      data: await replacePriceOverrides(prisma, request.identity.organizationId, request.body.prices),
    }),
  });
};
