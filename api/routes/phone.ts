import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PrismaClient } from '../../prisma/client.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { commonErrors, envelope, ErrorResponse, pagedEnvelope, pageQuery } from '../schemas/common.js';
import { paginationOf } from '../../lib/pagination.js';
import {
  connectionWarnings,
  createPhoneConnection,
  createPhoneNumber,
  deletePhoneConnection,
  deletePhoneNumber,
  getPhoneConnection,
  getPhoneNumber,
  listPhoneConnections,
  listPhoneNumbers,
  PhoneConnection,
  PhoneConnectionCreate,
  PhoneConnectionParams,
  PhoneConnectionUpdate,
  PhoneNumber,
  PhoneNumberCreate,
  PhoneNumberParams,
  PhoneNumberUpdate,
  updatePhoneConnection,
  updatePhoneNumber,
} from '../../modules/telephony/index.js';

// Phone connections (SIP trunks) and managed numbers: what outbound calls dial through and inbound calls arrive on.

const tags = ['Telephony'];
const connectionMissing = { 404: ErrorResponse.describe('No such phone connection in this organisation') };
const numberMissing = { 404: ErrorResponse.describe('No such phone number in this organisation') };

export const phoneRoutes: FastifyPluginAsyncZod<{ prisma: PrismaClient; secrets: SecretBox; publicUrl?: string | undefined }> = async (
  app,
  { prisma, secrets, publicUrl },
) => {
  const shown = <T extends { kind: string }>(connection: T) => ({ ...connection, warnings: connectionWarnings(connection.kind, publicUrl) });

  app.post('/phone-connections', {
    schema: {
      tags,
      summary: 'Create a phone connection (SIP trunk or carrier account)',
      body: PhoneConnectionCreate,
      response: { 201: envelope(PhoneConnection), ...commonErrors },
    },
    handler: async (request, reply) => {
      const data = shown(await createPhoneConnection(prisma, secrets, request.identity.organizationId, request.body));
      return reply.status(201).send({ success: true as const, message: 'Phone connection created', data });
    },
  });

  app.get('/phone-connections', {
    schema: {
      tags,
      summary: 'List phone connections',
      description: 'Newest first.',
      querystring: pageQuery,
      response: { 200: pagedEnvelope(PhoneConnection), ...commonErrors },
    },
    handler: async (request) => {
      const { page, per_page } = request.query;
      const { data, total } = await listPhoneConnections(prisma, secrets, request.identity.organizationId, page, per_page);
      return { success: true as const, message: 'Phone connections retrieved', data: data.map(shown), pagination: paginationOf(page, per_page, total) };
    },
  });

  app.get('/phone-connections/:connection_id', {
    schema: {
      tags,
      summary: 'Get a phone connection',
      params: PhoneConnectionParams,
      response: { 200: envelope(PhoneConnection), ...connectionMissing, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Phone connection retrieved',
      data: shown(await getPhoneConnection(prisma, secrets, request.identity.organizationId, request.params.connection_id)),
    }),
  });

  app.patch('/phone-connections/:connection_id', {
    schema: {
      tags,
      summary: 'Update a phone connection',
      description: "The password and the auth token are write-only: send the mask back unchanged to keep them. A connection's kind does not change.",
      params: PhoneConnectionParams,
      body: PhoneConnectionUpdate,
      response: { 200: envelope(PhoneConnection), ...connectionMissing, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Phone connection updated',
      data: shown(await updatePhoneConnection(prisma, secrets, request.identity.organizationId, request.params.connection_id, request.body)),
    }),
  });

  app.delete('/phone-connections/:connection_id', {
    schema: {
      tags,
      summary: 'Delete a phone connection',
      description: 'Its numbers go with it; calls made through them keep their records.',
      params: PhoneConnectionParams,
      response: { 204: z.undefined().describe('Deleted'), ...connectionMissing, ...commonErrors },
    },
    handler: async (request, reply) => {
      await deletePhoneConnection(prisma, request.identity.organizationId, request.params.connection_id);
      return reply.status(204).send();
    },
  });

  app.post('/phone-numbers', {
    schema: {
      tags,
      summary: 'Add a managed phone number',
      body: PhoneNumberCreate,
      response: { 201: envelope(PhoneNumber), 409: ErrorResponse.describe('The number is already registered'), ...commonErrors },
    },
    handler: async (request, reply) => {
      const data = await createPhoneNumber(prisma, request.identity.organizationId, request.body);
      return reply.status(201).send({ success: true as const, message: 'Phone number created', data });
    },
  });

  app.get('/phone-numbers', {
    schema: {
      tags,
      summary: 'List managed phone numbers',
      description: 'Newest first.',
      querystring: pageQuery,
      response: { 200: pagedEnvelope(PhoneNumber), ...commonErrors },
    },
    handler: async (request) => {
      const { page, per_page } = request.query;
      const { data, total } = await listPhoneNumbers(prisma, request.identity.organizationId, page, per_page);
      return { success: true as const, message: 'Phone numbers retrieved', data, pagination: paginationOf(page, per_page, total) };
    },
  });

  app.get('/phone-numbers/:number_id', {
    schema: {
      tags,
      summary: 'Get a managed phone number',
      params: PhoneNumberParams,
      response: { 200: envelope(PhoneNumber), ...numberMissing, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Phone number retrieved',
      data: await getPhoneNumber(prisma, request.identity.organizationId, request.params.number_id),
    }),
  });

  app.patch('/phone-numbers/:number_id', {
    schema: {
      tags,
      summary: 'Update a managed phone number',
      description: 'The number itself cannot change: delete it and add the new one.',
      params: PhoneNumberParams,
      body: PhoneNumberUpdate,
      response: { 200: envelope(PhoneNumber), ...numberMissing, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Phone number updated',
      data: await updatePhoneNumber(prisma, request.identity.organizationId, request.params.number_id, request.body),
    }),
  });

  app.delete('/phone-numbers/:number_id', {
    schema: {
      tags,
      summary: 'Remove a managed phone number',
      params: PhoneNumberParams,
      response: { 204: z.undefined().describe('Deleted'), ...numberMissing, ...commonErrors },
    },
    handler: async (request, reply) => {
      await deletePhoneNumber(prisma, request.identity.organizationId, request.params.number_id);
      return reply.status(204).send();
    },
  });
};
