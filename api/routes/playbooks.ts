import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PrismaClient } from '../../prisma/client.js';
import { commonErrors, envelope, ErrorResponse, pagedEnvelope, pageQuery } from '../schemas/common.js';
import {
  createPlaybook,
  deletePlaybook,
  getPlaybook,
  listPlaybooks,
  Playbook,
  PlaybookCreate,
  PlaybookParams,
  PlaybookUpdate,
  updatePlaybook,
} from '../../modules/playbooks/index.js';

const tags = ['Playbooks'];
const notFound = { 404: ErrorResponse.describe('No such playbook in this organisation') };
const nameTaken = { 409: ErrorResponse.describe('Another playbook of the organisation has this name') };
const PATH = '/playbooks';

export interface PlaybookRouteOptions {
  prisma: PrismaClient;
}

export const playbookRoutes: FastifyPluginAsyncZod<PlaybookRouteOptions> = async (app, { prisma }) => {
  app.post(PATH, {
    schema: {
      tags,
      summary: 'Create a playbook',
      description:
        'A procedure the assistant follows when a situation arises: when to use it (`description`), its `goal`, ordered ' +
        '`instructions`, example exchanges, the tools it may use and the values it collects. Attach it to an assistant ' +
        'with `playbook_ids`. See docs/playbooks.md.',
      body: PlaybookCreate,
      response: { 201: envelope(Playbook), ...nameTaken, ...commonErrors },
    },
    handler: async (request, reply) => {
      const data = await createPlaybook(prisma, request.identity.organizationId, request.body);
      return reply.status(201).send({ success: true as const, message: 'Playbook created', data });
    },
  });

  app.get(PATH, {
    schema: {
      tags,
      summary: 'List playbooks',
      description: 'Newest first. `per_page` defaults to 20, at most 100.',
      querystring: pageQuery,
      response: { 200: pagedEnvelope(Playbook), ...commonErrors },
    },
    handler: async (request) => {
      const { page, per_page } = request.query;
      return { success: true as const, message: 'Playbooks retrieved', ...(await listPlaybooks(prisma, request.identity.organizationId, page, per_page)) };
    },
  });

  app.get(`${PATH}/:playbook_id`, {
    schema: { tags, summary: 'Get a playbook', params: PlaybookParams, response: { 200: envelope(Playbook), ...notFound, ...commonErrors } },
    handler: async (request) => ({
      success: true as const,
      message: 'Playbook retrieved',
      data: await getPlaybook(prisma, request.identity.organizationId, request.params.playbook_id),
    }),
  });

  app.patch(`${PATH}/:playbook_id`, {
    schema: {
      tags,
      summary: 'Update a playbook',
      description: 'Omitted fields keep their value; lists (`instructions`, `examples`, `tool_ids`, `collect`) are replaced whole.',
      params: PlaybookParams,
      body: PlaybookUpdate,
      response: { 200: envelope(Playbook), ...notFound, ...nameTaken, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Playbook updated',
      data: await updatePlaybook(prisma, request.identity.organizationId, request.params.playbook_id, request.body),
    }),
  });

  app.delete(`${PATH}/:playbook_id`, {
    schema: {
      tags,
      summary: 'Delete a playbook',
      description: 'Assistants it was attached to no longer take it.',
      params: PlaybookParams,
      response: { 200: envelope(z.object({ id: z.int() })), ...notFound, ...commonErrors },
    },
    handler: async (request) => {
      await deletePlaybook(prisma, request.identity.organizationId, request.params.playbook_id);
      return { success: true as const, message: 'Playbook deleted', data: { id: request.params.playbook_id } };
    },
  });
};
