import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PrismaClient } from '../../prisma/client.js';
import {
  Assistant,
  AssistantCreate,
  AssistantParams,
  type AssistantReadCache,
  AssistantUpdate,
  createAssistant,
  deleteAssistant,
  listAssistants,
  readAssistantJson,
  updateAssistant,
} from '../../modules/assistants/index.js';
import { commonErrors, ErrorResponse, pagedEnvelope, pageQuery } from '../schemas/common.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { VendorTargetPolicy } from '../../lib/net/vendor-targets.js';

const tags = ['Assistants'];
const notFound = { 404: ErrorResponse.describe('No such assistant in this organisation') };

export const assistantRoutes: FastifyPluginAsyncZod<{
  prisma: PrismaClient;
  cache?: AssistantReadCache;
  secrets: SecretBox;
  vendorTargets: VendorTargetPolicy;
}> = async (app, { prisma, cache, secrets, vendorTargets }) => {
  // This process's own writes drop its cache entry at once (read-your-writes); other processes hear of them through
  // the database's `assistant_changed` notification.
  const written = (id: number) => cache?.invalidate(id);

  app.post('/assistants', {
    schema: {
      tags,
      summary: 'Create an assistant',
      description: 'Every omitted field takes its default. Returns the assistant object directly, without the envelope.',
      body: AssistantCreate,
      response: { 201: Assistant, ...commonErrors },
    },
    handler: async (request, reply) => {
      const assistant = await createAssistant(prisma, request.identity, request.body, secrets, vendorTargets);
      written(assistant.id);
      return reply.status(201).send(assistant);
    },
  });

  app.get('/assistants', {
    schema: {
      tags,
      summary: 'List assistants',
      description: 'Newest first. `per_page` defaults to 20, at most 100.',
      querystring: pageQuery,
      response: { 200: pagedEnvelope(Assistant), ...commonErrors },
    },
    handler: async (request) => {
      const { page, per_page } = request.query;
      const result = await listAssistants(prisma, request.identity.organizationId, page, per_page, secrets);
      return { success: true as const, message: 'Assistants retrieved', ...result };
    },
  });

  app.get('/assistants/:assistant_id', {
    schema: {
      tags,
      summary: 'Get an assistant',
      params: AssistantParams,
      response: { 200: Assistant, ...notFound, ...commonErrors },
    },
    handler: async (request, reply) => {
      const json = await readAssistantJson(prisma, cache, request.identity.organizationId, request.params.assistant_id, secrets);
      // Already serialised (and cached that way): sent as is.
      return reply
        .type('application/json; charset=utf-8')
        .serializer((body) => body as string)
        .send(json as never);
    },
  });

  app.patch('/assistants/:assistant_id', {
    schema: {
      tags,
      summary: 'Update an assistant',
      description:
        'Partial update. Nested settings merge field by field; arrays, free-form objects and explicit nulls replace the stored value. ' +
        "Vendor keys (`llm_provider_config.custom_config.api_key`, `tts_settings.provider_config.api_key`, a fallback's `api_key`) " +
        'are write-only: answers show a mask, and a mask sent back unchanged keeps the stored key. A stored key is not sent to another ' +
        'provider or `base_url` unless it is sent again (422 at the key otherwise).',
      params: AssistantParams,
      body: AssistantUpdate,
      response: { 200: Assistant, ...notFound, ...commonErrors },
    },
    handler: async (request) => {
      try {
        return await updateAssistant(
          prisma,
          request.identity.organizationId,
          request.params.assistant_id,
          request.body as Record<string, unknown>,
          secrets,
          vendorTargets,
        );
      } finally {
        written(request.params.assistant_id);
      }
    },
  });

  app.delete('/assistants/:assistant_id', {
    schema: {
      tags,
      summary: 'Delete an assistant',
      params: AssistantParams,
      response: { 204: z.undefined().describe('Deleted'), ...notFound, ...commonErrors },
    },
    handler: async (request, reply) => {
      try {
        await deleteAssistant(prisma, request.identity.organizationId, request.params.assistant_id);
      } finally {
        written(request.params.assistant_id);
      }
      return reply.status(204).send();
    },
  });
};
