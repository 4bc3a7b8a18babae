import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PrismaClient } from '../../prisma/client.js';
import { commonErrors, envelope, ErrorResponse } from '../schemas/common.js';
import {
  ContactProperty,
  ContactPropertyCreate,
  ContactPropertyParams,
  ContactPropertyUpdate,
  createContactProperty,
  deleteContactProperty,
  getContactProperty,
  listContactProperties,
  updateContactProperty,
} from '../../modules/contacts/index.js';

const tags = ['Contact properties'];
const notFound = { 404: ErrorResponse.describe('No such property in this organisation') };

export const contactPropertyRoutes: FastifyPluginAsyncZod<{ prisma: PrismaClient }> = async (app, { prisma }) => {
  app.post('/contact-properties', {
    schema: {
      tags,
      summary: 'Create a custom contact property',
      description: 'Created once; then set per contact in `custom_fields`. Key and type are fixed once created.',
      body: ContactPropertyCreate,
      response: {
        201: envelope(ContactProperty),
        409: ErrorResponse.describe('The key is taken (`existing_property_id`), or the organisation has reached its property limit'),
        ...commonErrors,
      },
    },
    handler: async (request, reply) => {
      const property = await createContactProperty(prisma, request.identity.organizationId, request.body);
      return reply.status(201).send({ success: true, message: 'Contact property created', data: property });
    },
  });

  app.get('/contact-properties', {
    schema: {
      tags,
      summary: 'List custom contact properties',
      description: 'Oldest first, all of them (an organisation has at most 200).',
      response: { 200: envelope(z.array(ContactProperty)), 401: commonErrors[401] },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Contact properties retrieved',
      data: await listContactProperties(prisma, request.identity.organizationId),
    }),
  });

  app.get('/contact-properties/:property_id', {
    schema: {
      tags,
      summary: 'Get a custom contact property',
      params: ContactPropertyParams,
      response: { 200: envelope(ContactProperty), ...notFound, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Contact property retrieved',
      data: await getContactProperty(prisma, request.identity.organizationId, request.params.property_id),
    }),
  });

  app.patch('/contact-properties/:property_id', {
    schema: {
      tags,
      summary: 'Update the label or options of a custom contact property',
      params: ContactPropertyParams,
      body: ContactPropertyUpdate,
      response: {
        200: envelope(ContactProperty),
        ...notFound,
        409: ErrorResponse.describe('Options given for a property that is not a select, or removed options still held by contacts (`options_in_use`)'),
        ...commonErrors,
      },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Contact property updated',
      data: await updateContactProperty(prisma, request.identity.organizationId, request.params.property_id, request.body),
    }),
  });

  app.delete('/contact-properties/:property_id', {
    schema: {
      tags,
      summary: 'Delete a custom contact property',
      description: "Its values are removed from every contact's `custom_fields`.",
      params: ContactPropertyParams,
      response: { 204: z.undefined().describe('Deleted'), ...notFound, ...commonErrors },
    },
    handler: async (request, reply) => {
      await deleteContactProperty(prisma, request.identity.organizationId, request.params.property_id);
      return reply.status(204).send();
    },
  });
};
