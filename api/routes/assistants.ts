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
  AssistantDraft,
  AssistantVersion,
  AssistantVersionDiff,
  discardAssistantDraft,
  getAssistantDraft,
  publishAssistantDraft,
  saveAssistantDraft,
  AssistantVersionSummary,
  diffAssistantVersions,
  getAssistantVersion,
  listAssistantVersions,
  restoreAssistantVersion,
  VersionDiffQuery,
  VersionParams,
} from '../../modules/assistants/index.js';
import { commonErrors, envelope, ErrorResponse, pagedEnvelope, pageQuery } from '../schemas/common.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { VendorTargetPolicy } from '../../lib/net/vendor-targets.js';

const tags = ['Assistants'];
const notFound = { 404: ErrorResponse.describe('No such assistant in this organisation') };
const versionNotFound = { 404: ErrorResponse.describe('No such assistant in this organisation, or no such version of it') };

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
          { userId: request.identity.userId, via: 'api' },
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

  app.get('/assistants/:assistant_id/versions', {
    schema: {
      tags,
      summary: "List an assistant's versions",
      description: 'Newest first. Every saved change is a version: who saved it, how, and which settings changed.',
      params: AssistantParams,
      querystring: pageQuery,
      response: { 200: pagedEnvelope(AssistantVersionSummary), ...notFound, ...commonErrors },
    },
    handler: async (request) => {
      const { page, per_page } = request.query;
      const result = await listAssistantVersions(prisma, request.identity.organizationId, request.params.assistant_id, page, per_page);
      return { success: true as const, message: 'Versions retrieved', ...result };
    },
  });

  app.get('/assistants/:assistant_id/versions/:version', {
    schema: {
      tags,
      summary: 'Get a version of an assistant',
      description: 'The whole settings of that version, vendor keys masked.',
      params: VersionParams,
      response: { 200: envelope(AssistantVersion), ...versionNotFound, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Version retrieved',
      data: await getAssistantVersion(prisma, request.identity.organizationId, request.params.assistant_id, request.params.version, secrets),
    }),
  });

  app.get('/assistants/:assistant_id/versions/:version/diff', {
    schema: {
      tags,
      summary: 'Compare two versions of an assistant',
      description: 'Each setting that differs from version `against` (default: the one before) to this one, as dotted paths with both values.',
      params: VersionParams,
      querystring: VersionDiffQuery,
      response: { 200: envelope(AssistantVersionDiff), ...versionNotFound, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Versions compared',
      data: await diffAssistantVersions(
        prisma,
        request.identity.organizationId,
        request.params.assistant_id,
        request.params.version,
        request.query.against,
        secrets,
      ),
    }),
  });

  app.post('/assistants/:assistant_id/versions/:version/restore', {
    schema: {
      tags,
      summary: 'Make a former version current again',
      description:
        'Its settings replace the current ones as a new version (nothing is rewritten); tools, documents and playbooks deleted or disabled since are left out. No request body.',
      params: VersionParams,
      response: { 200: Assistant, ...versionNotFound, ...commonErrors },
    },
    handler: async (request) => {
      try {
        return await restoreAssistantVersion(
          prisma,
          request.identity.organizationId,
          request.params.assistant_id,
          request.params.version,
          secrets,
          request.identity.userId,
        );
      } finally {
        written(request.params.assistant_id);
      }
    },
  });

  const draftNotFound = { 404: ErrorResponse.describe('No such assistant in this organisation, or it has no draft') };

  app.get('/assistants/:assistant_id/draft', {
    schema: {
      tags,
      summary: "Get an assistant's draft",
      params: AssistantParams,
      response: { 200: envelope(AssistantDraft), ...draftNotFound, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Draft retrieved',
      data: await getAssistantDraft(prisma, request.identity.organizationId, request.params.assistant_id, secrets),
    }),
  });

  app.patch('/assistants/:assistant_id/draft', {
    schema: {
      tags,
      summary: "Change an assistant's draft",
      description:
        'Saves changes without making them live: merged over the draft (or, without one, over the current settings) as PATCH /api/assistants/{id} merges, and checked the same way. Live calls keep the current version; test runs use the draft until it is published or discarded.',
      params: AssistantParams,
      body: AssistantUpdate,
      response: { 200: envelope(AssistantDraft), ...notFound, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Draft saved',
      data: await saveAssistantDraft(
        prisma,
        request.identity.organizationId,
        request.params.assistant_id,
        request.body as Record<string, unknown>,
        secrets,
        vendorTargets,
      ),
    }),
  });

  app.delete('/assistants/:assistant_id/draft', {
    schema: {
      tags,
      summary: "Discard an assistant's draft",
      params: AssistantParams,
      response: { 204: z.undefined().describe('Discarded'), ...draftNotFound, ...commonErrors },
    },
    handler: async (request, reply) => {
      await discardAssistantDraft(prisma, request.identity.organizationId, request.params.assistant_id);
      return reply.status(204).send();
    },
  });

  app.post('/assistants/:assistant_id/draft/publish', {
    schema: {
      tags,
      summary: "Publish an assistant's draft",
      description: 'The draft becomes the current settings as the next version, and is gone. No request body.',
      params: AssistantParams,
      response: { 200: Assistant, ...draftNotFound, ...commonErrors },
    },
    handler: async (request) => {
      try {
        return await publishAssistantDraft(prisma, request.identity.organizationId, request.params.assistant_id, secrets, {
          userId: request.identity.userId,
          via: 'api',
        });
      } finally {
        written(request.params.assistant_id);
      }
    },
  });
};
