import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { PrismaClient } from '../../prisma/client.js';
import { commonErrors, envelope, ErrorResponse, pagedEnvelope, pageQuery } from '../schemas/common.js';
import {
  createWidgetKey,
  getWidgetKey,
  listWidgetKeys,
  revokeWidgetKey,
  updateWidgetKey,
  WidgetKey,
  WidgetKeyCreate,
  WidgetKeyParams,
  WidgetKeyUpdate,
} from '../../modules/widgets/index.js';

// Website widget keys (docs/widget.md): the public keys a page's script tag carries to start calls to one assistant.

const tags = ['Website widget'];
const notFound = { 404: ErrorResponse.describe('No such widget key in this organisation') };
const revoked = { 409: ErrorResponse.describe('The key is revoked (`invalid_state`): a revoked key is not changed or revoked again') };
const PATH = '/widget-keys';

export const widgetKeyRoutes: FastifyPluginAsyncZod<{ prisma: PrismaClient }> = async (app, { prisma }) => {
  app.post(PATH, {
    schema: {
      tags,
      summary: 'Create a widget key',
      description:
        'A public key for the website widget: pages on `allowed_origins` that load `/widget.js` with `data-key` show a button that starts a browser call to the assistant. ' +
        'The key is not a secret; what it can do is bounded by its origins, its calls per minute and its calls under way.',
      body: WidgetKeyCreate,
      response: { 201: envelope(WidgetKey), ...commonErrors },
    },
    handler: async (request, reply) => {
      const data = await createWidgetKey(prisma, request.identity.organizationId, request.body);
      return reply.status(201).send({ success: true as const, message: 'Widget key created', data });
    },
  });

  app.get(PATH, {
    schema: {
      tags,
      summary: 'List widget keys',
      description: 'Newest first, revoked keys included. `per_page` defaults to 20, at most 100.',
      querystring: pageQuery,
      response: { 200: pagedEnvelope(WidgetKey), ...commonErrors },
    },
    handler: async (request) => {
      const { page, per_page } = request.query;
      return { success: true as const, message: 'Widget keys retrieved', ...(await listWidgetKeys(prisma, request.identity.organizationId, page, per_page)) };
    },
  });

  app.get(`${PATH}/:widget_key_id`, {
    schema: { tags, summary: 'Get a widget key', params: WidgetKeyParams, response: { 200: envelope(WidgetKey), ...notFound, ...commonErrors } },
    handler: async (request) => ({
      success: true as const,
      message: 'Widget key retrieved',
      data: await getWidgetKey(prisma, request.identity.organizationId, request.params.widget_key_id),
    }),
  });

  app.patch(`${PATH}/:widget_key_id`, {
    schema: {
      tags,
      summary: 'Update a widget key',
      description: 'Omitted fields keep their value; `allowed_origins` is replaced whole. Pages see the change on their next request.',
      params: WidgetKeyParams,
      body: WidgetKeyUpdate,
      response: { 200: envelope(WidgetKey), ...notFound, ...revoked, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Widget key updated',
      data: await updateWidgetKey(prisma, request.identity.organizationId, request.params.widget_key_id, request.body),
    }),
  });

  app.delete(`${PATH}/:widget_key_id`, {
    schema: {
      tags,
      summary: 'Revoke a widget key',
      description: 'Every page carrying the key stops starting calls at once; calls under way go on. The key stays listed, with `revoked_at`.',
      params: WidgetKeyParams,
      response: { 200: envelope(WidgetKey), ...notFound, ...revoked, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Widget key revoked',
      data: await revokeWidgetKey(prisma, request.identity.organizationId, request.params.widget_key_id),
    }),
  });
};
