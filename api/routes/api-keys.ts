import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PrismaClient } from '../../prisma/client.js';
import { idParam } from '../../lib/zod/query.js';
import { ApiKeyCreate, ApiKeyCreated, ApiKeyItem, issueApiKey, listKeysWithCreators, revokeApiKeyById } from '../../modules/organizations/index.js';
import { envelope, ErrorResponse } from '../schemas/common.js';
import { sessionDescription, sessionErrors, sessionSecurity } from './session-schemas.js';

const tags = ['Session-only'];
const config = { auth: 'session' as const, sessionOnly: 'Managing API keys' };

export const apiKeyRoutes: FastifyPluginAsyncZod<{ prisma: PrismaClient }> = async (app, { prisma }) => {
  app.get('/organization/api-keys', {
    config,
    schema: {
      tags,
      security: sessionSecurity,
      summary: "List the organisation's API keys",
      description: sessionDescription,
      response: { 200: envelope(z.array(ApiKeyItem)), ...sessionErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'API keys retrieved',
      data: await listKeysWithCreators(prisma, request.signedIn!.organizationId),
    }),
  });

  app.post('/organization/api-keys', {
    config,
    schema: {
      tags,
      security: sessionSecurity,
      summary: 'Create an API key (shown once)',
      description: `${sessionDescription} Owners and admins only. The key acts with the creator's permissions in the organisation until revoked, or until the creator is removed.`,
      body: ApiKeyCreate,
      response: { 201: envelope(ApiKeyCreated), ...sessionErrors },
    },
    handler: async (request, reply) => {
      const data = await issueApiKey(prisma, request.signedIn!, request.body.name);
      return reply.status(201).send({ success: true as const, message: 'API key created: keep it now, it is not shown again', data });
    },
  });

  app.delete('/organization/api-keys/:key_id', {
    config,
    schema: {
      tags,
      security: sessionSecurity,
      summary: 'Revoke an API key',
      description: `${sessionDescription} Owners and admins only. Every API process stops accepting the key at once.`,
      params: z.object({ key_id: idParam }),
      response: { 200: envelope(z.object({ id: z.int() })), 404: ErrorResponse.describe('No live key with this id in the organisation'), ...sessionErrors },
    },
    handler: async (request) => {
      await revokeApiKeyById(prisma, request.signedIn!, request.params.key_id);
      // This process stops accepting the key now; the others when the change notification reaches them.
      request.server.keyCache.clear();
      return { success: true as const, message: 'API key revoked', data: { id: request.params.key_id } };
    },
  });
};
