import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { PrismaClient } from '../../prisma/client.js';
import { commonErrors, envelope, pagedEnvelope, pageQuery } from '../schemas/common.js';
import { DataDeletion, listDataDeletions } from '../../modules/calls/index.js';
import { getOrganizationSettings, OrganizationSettings, OrganizationSettingsUpdate, updateOrganizationSettings } from '../../modules/organizations/index.js';

const tags = ['Organization'];

export const organizationSettingsRoutes: FastifyPluginAsyncZod<{ prisma: PrismaClient }> = async (app, { prisma }) => {
  app.get('/organization/settings', {
    schema: {
      tags,
      summary: "Read the organisation's settings",
      response: { 200: envelope(OrganizationSettings), 401: commonErrors[401] },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Organization settings retrieved',
      data: await getOrganizationSettings(prisma, request.identity.organizationId),
    }),
  });

  app.patch('/organization/settings', {
    schema: {
      tags,
      summary: "Change the organisation's settings",
      description:
        '`default_phone_region` is upper-cased; it applies to phone numbers read from now on. A retention window deletes, within the hour, the recordings or transcripts of calls that ended longer ago (GET /api/organization/data-deletions lists each deletion).',
      body: OrganizationSettingsUpdate,
      response: { 200: envelope(OrganizationSettings), ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Organization settings updated',
      data: await updateOrganizationSettings(prisma, request.identity.organizationId, request.body),
    }),
  });

  app.get('/organization/data-deletions', {
    schema: {
      tags,
      summary: 'List what retention deleted',
      description: "Newest first: each call's recordings or transcript deleted because the organisation's retention window had passed.",
      querystring: pageQuery,
      response: { 200: pagedEnvelope(DataDeletion), ...commonErrors },
    },
    handler: async (request) => {
      const { page, per_page } = request.query;
      return { success: true as const, message: 'Deletions retrieved', ...(await listDataDeletions(prisma, request.identity.organizationId, page, per_page)) };
    },
  });
};
