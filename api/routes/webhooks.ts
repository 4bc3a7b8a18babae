import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PrismaClient } from '../../prisma/client.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { commonErrors, envelope, ErrorResponse, pagedEnvelope, pageQuery } from '../schemas/common.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  DeliveriesQuery,
  DeliveryParams,
  EndpointParams,
  getWebhookEndpoint,
  listWebhookDeliveryAttempts,
  listWebhookEndpoints,
  redeliverWebhook,
  RotateSecretBody,
  rotateWebhookSecret,
  updateWebhookEndpoint,
  WebhookDelivery,
  WebhookDeliveryAttempt,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointUpdate,
  WebhookEndpointWithSecret,
  type WebhookPolicy,
} from '../../modules/webhooks/index.js';

const tags = ['Webhooks'];
const notFound = { 404: ErrorResponse.describe('No such webhook endpoint in this organisation') };
const PATH = '/organization/webhooks';

export interface WebhookRouteOptions {
  prisma: PrismaClient;
  /** Seals the signing secrets at rest (SECRETS_KEY). */
  secrets: SecretBox;
  /** Accept endpoint URLs whose host is a loopback, private or other non-public IP address. Default false. */
  allowPrivateTargets?: boolean;
}

export const webhookRoutes: FastifyPluginAsyncZod<WebhookRouteOptions> = async (app, { prisma, secrets, allowPrivateTargets }) => {
  const policy: WebhookPolicy = { allowPrivateTargets: allowPrivateTargets ?? false };

  app.post(PATH, {
    schema: {
      tags,
      summary: 'Register a webhook endpoint',
      description:
        'Events of the listed kinds are POSTed to the URL, signed as Standard Webhooks do. The response carries the ' +
        'signing secret, which is never shown again. See docs/events.md and docs/webhooks.md.',
      body: WebhookEndpointCreate,
      response: {
        201: envelope(WebhookEndpointWithSecret),
        409: ErrorResponse.describe('The organisation has the most endpoints it may have'),
        ...commonErrors,
      },
    },
    handler: async (request, reply) => {
      const data = await createWebhookEndpoint(prisma, request.identity.organizationId, request.body, policy, secrets);
      return reply.status(201).send({ success: true as const, message: 'Webhook endpoint created', data });
    },
  });

  app.get(PATH, {
    schema: {
      tags,
      summary: 'List webhook endpoints',
      description: 'Newest first. `per_page` defaults to 20, at most 100.',
      querystring: pageQuery,
      response: { 200: pagedEnvelope(WebhookEndpoint), ...commonErrors },
    },
    handler: async (request) => {
      const { page, per_page } = request.query;
      const result = await listWebhookEndpoints(prisma, request.identity.organizationId, page, per_page, secrets);
      return { success: true as const, message: 'Webhook endpoints retrieved', ...result };
    },
  });

  app.get(`${PATH}/:endpoint_id`, {
    schema: {
      tags,
      summary: 'Get a webhook endpoint',
      params: EndpointParams,
      response: { 200: envelope(WebhookEndpoint), ...notFound, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Webhook endpoint retrieved',
      data: await getWebhookEndpoint(prisma, request.identity.organizationId, request.params.endpoint_id, secrets),
    }),
  });

  app.patch(`${PATH}/:endpoint_id`, {
    schema: {
      tags,
      summary: 'Update a webhook endpoint',
      params: EndpointParams,
      body: WebhookEndpointUpdate,
      response: { 200: envelope(WebhookEndpoint), ...notFound, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Webhook endpoint updated',
      data: await updateWebhookEndpoint(prisma, request.identity.organizationId, request.params.endpoint_id, request.body, policy, secrets),
    }),
  });

  app.delete(`${PATH}/:endpoint_id`, {
    schema: {
      tags,
      summary: 'Delete a webhook endpoint',
      description: 'Deletes the endpoint, its queued deliveries and its delivery log.',
      params: EndpointParams,
      response: { 200: envelope(z.object({ id: z.int() })), ...notFound, ...commonErrors },
    },
    handler: async (request) => {
      await deleteWebhookEndpoint(prisma, request.identity.organizationId, request.params.endpoint_id);
      return { success: true as const, message: 'Webhook endpoint deleted', data: { id: request.params.endpoint_id } };
    },
  });

  app.post(`${PATH}/:endpoint_id/rotate-secret`, {
    schema: {
      tags,
      summary: 'Rotate the signing secret',
      description:
        'Issues a new secret, shown only in this response. The previous secret keeps signing alongside it for ' +
        '`overlap_seconds` (default 86400), so every delivery carries both signatures until then. The body is optional.',
      params: EndpointParams,
      body: RotateSecretBody.optional(),
      response: { 200: envelope(WebhookEndpointWithSecret), ...notFound, ...commonErrors },
    },
    handler: async (request) => {
      const overlapS = RotateSecretBody.parse(request.body ?? {}).overlap_seconds;
      const data = await rotateWebhookSecret(prisma, request.identity.organizationId, request.params.endpoint_id, overlapS, secrets);
      return { success: true as const, message: 'Webhook secret rotated', data };
    },
  });

  app.get(`${PATH}/:endpoint_id/deliveries`, {
    schema: {
      tags,
      summary: 'List delivery attempts of a webhook endpoint',
      description: 'Newest first, at most `limit` (1 to 200, default 50).',
      params: EndpointParams,
      querystring: DeliveriesQuery,
      response: { 200: envelope(z.array(WebhookDeliveryAttempt)), ...notFound, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Webhook deliveries retrieved',
      data: await listWebhookDeliveryAttempts(prisma, request.identity.organizationId, request.params.endpoint_id, request.query.limit),
    }),
  });

  app.post(`${PATH}/:endpoint_id/deliveries/:delivery_id/redeliver`, {
    schema: {
      tags,
      summary: 'Redeliver an event',
      description:
        'Queues the delivery for an immediate attempt with a fresh retry schedule, whether it succeeded, gave up or is ' +
        'waiting for a retry. The receiver gets the same `webhook-id` again.',
      params: DeliveryParams,
      response: {
        202: envelope(WebhookDelivery),
        404: ErrorResponse.describe('No such webhook endpoint or delivery in this organisation'),
        409: ErrorResponse.describe('The endpoint is disabled, or an attempt is in progress'),
        ...commonErrors,
      },
    },
    handler: async (request, reply) => {
      const data = await redeliverWebhook(prisma, request.identity.organizationId, request.params.endpoint_id, request.params.delivery_id);
      return reply.status(202).send({ success: true as const, message: 'Delivery queued', data });
    },
  });
};
