import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { PrismaClient } from '../../prisma/client.js';
import { commonErrors, envelope } from '../schemas/common.js';
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
      description: '`default_phone_region` is upper-cased; it applies to phone numbers read from now on.',
      body: OrganizationSettingsUpdate,
      response: { 200: envelope(OrganizationSettings), ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Organization settings updated',
      data: await updateOrganizationSettings(prisma, request.identity.organizationId, request.body),
    }),
  });
};
