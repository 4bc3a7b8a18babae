import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PrismaClient } from '../../prisma/client.js';
import type { RecordingStorage } from '../../media/recording/storage.js';
import { textBool } from '../../lib/zod/query.js';
import { commonErrors, envelope, ErrorResponse } from '../schemas/common.js';
import {
  Contact,
  ContactCreate,
  ContactList,
  ContactListQuery,
  ContactParams,
  ContactUpdate,
  createContact,
  CUSTOM_FILTER_PREFIX,
  deleteContact,
  getContact,
  listContacts,
  updateContact,
} from '../../modules/contacts/index.js';

const tags = ['Contacts'];
const notFound = { 404: ErrorResponse.describe('No such contact in this organisation') };
const conflict = {
  409: ErrorResponse.describe(
    'The phone number, email or external_id belongs to another contact: `field` names it, `existing_contact_id` is that contact, ' +
      '`conflicts` lists every clash. Nothing was written.',
  ),
};

/** The `cf.<key>` parameters of a list request, each as the list of its values. */
function customFilters(query: Record<string, unknown>): Record<string, string[]> {
  const custom: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(query)) {
    if (!name.startsWith(CUSTOM_FILTER_PREFIX) || value === undefined) continue;
    custom[name.slice(CUSTOM_FILTER_PREFIX.length)] = Array.isArray(value) ? value.map(String) : [String(value)];
  }
  return custom;
}

export const contactRoutes: FastifyPluginAsyncZod<{ prisma: PrismaClient; recordings: RecordingStorage }> = async (app, { prisma, recordings }) => {
  app.post('/contacts', {
    schema: {
      tags,
      summary: 'Create a contact',
      description: 'Phone and email are normalised before storage; each of phone, email and external_id is unique in the organisation.',
      body: ContactCreate,
      response: { 201: envelope(Contact), ...conflict, ...commonErrors },
    },
    handler: async (request, reply) => {
      const contact = await createContact(prisma, request.identity.organizationId, request.body);
      return reply.status(201).send({ success: true, message: 'Contact created', data: contact });
    },
  });

  app.get('/contacts', {
    schema: {
      tags,
      summary: 'List and search contacts',
      description:
        'Newest first. Repeating a filter widens it (or); different filters narrow (and). `cf.<key>=<value>` filters on a custom ' +
        "field (the value is read as the property's type). Pagination uses `page` and `page_size`; `per_page` is ignored.",
      querystring: ContactListQuery,
      response: { 200: ContactList, ...commonErrors },
    },
    handler: async (request) => {
      const { page, page_size, source, campaign_id, has_email, has_phone, last_seen_after, last_seen_before, q, ...rest } = request.query;
      const result = await listContacts(
        prisma,
        request.identity.organizationId,
        { source, campaign_id, has_email, has_phone, last_seen_after, last_seen_before, q, custom: customFilters(rest) },
        page,
        page_size,
      );
      return { success: true as const, message: 'Contacts retrieved', ...result };
    },
  });

  app.get('/contacts/:contact_id', {
    schema: {
      tags,
      summary: 'Get a contact',
      params: ContactParams,
      response: { 200: envelope(Contact), ...notFound, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Contact retrieved',
      data: await getContact(prisma, request.identity.organizationId, request.params.contact_id),
    }),
  });

  app.patch('/contacts/:contact_id', {
    schema: {
      tags,
      summary: 'Update a contact',
      params: ContactParams,
      body: ContactUpdate,
      response: { 200: envelope(Contact), ...notFound, ...conflict, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Contact updated',
      data: await updateContact(prisma, request.identity.organizationId, request.params.contact_id, request.body),
    }),
  });

  app.delete('/contacts/:contact_id', {
    schema: {
      tags,
      summary: 'Delete a contact',
      description:
        "The contact's calls and test runs are kept, without the contact's details (docs/contacts.md). With " +
        "`delete_recordings=true` the recordings of its calls are deleted too: the voices in them are the person's.",
      params: ContactParams,
      querystring: z.object({ delete_recordings: textBool.default(false).describe("Also delete the recordings of the contact's calls") }),
      response: { 204: z.undefined().describe('Deleted'), ...notFound, ...commonErrors },
    },
    handler: async (request, reply) => {
      const withRecordings = request.query.delete_recordings
        ? {
            recordings: {
              storage: recordings,
              onRemoveFailed: (key: string, err: unknown) => request.log.warn({ err, key }, "a deleted contact's recording file was not removed"),
            },
          }
        : {};
      await deleteContact(prisma, request.identity.organizationId, request.params.contact_id, withRecordings);
      return reply.status(204).send();
    },
  });
};
