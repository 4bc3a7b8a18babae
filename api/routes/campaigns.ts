import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PrismaClient } from '../../prisma/client.js';
import { AppError } from '../../lib/errors.js';
import { paginationOf } from '../../lib/pagination.js';
import { repeated } from '../../lib/zod/query.js';
import { commonErrors, envelope, ErrorResponse, pagedEnvelope, pageQuery } from '../schemas/common.js';
import { IMPORT_BODY_LIMIT_BYTES, ImportReport, MAX_IMPORT_ROWS } from '../../modules/contacts/index.js';
import {
  addCampaignContacts,
  Campaign,
  CAMPAIGN_STATES,
  type CampaignAction,
  CampaignContact,
  CampaignContactsAdd,
  CampaignContactsAdded,
  CampaignParams,
  CampaignProgress,
  CampaignWrite,
  createCampaign,
  deleteCampaign,
  getCampaign,
  importCampaignContacts,
  listCampaignContacts,
  listCampaigns,
  replaceCampaign,
  transitionCampaign,
} from '../../modules/campaigns/index.js';
import { acceptCsvImports } from './contact-import.js';

// Campaigns: a list of people called on a schedule (docs/campaigns.md). The resource, its transitions, its contacts
// and its progress; the calls themselves are placed by the campaign dispatcher of any API process.

const tags = ['Campaigns'];
const missing = { 404: ErrorResponse.describe('No such campaign in this organisation') };
const conflict = { 409: ErrorResponse.describe("`invalid_state`: the campaign's state does not allow it; `state` names it") };

export interface CampaignRouteOptions {
  prisma: PrismaClient;
  /** Why calls from numbers of each connection kind cannot be placed here (as initiate answers 503), if they cannot. */
  unavailable: (kind: string) => string | undefined;
  /** A campaign was started or resumed: its dispatcher looks at once. */
  wake?: (() => void) | undefined;
}

const ACTIONS: Array<{ action: CampaignAction; summary: string; description: string }> = [
  {
    action: 'start',
    summary: 'Start a campaign',
    description: 'A draft with contacts becomes `running`, or `scheduled` until `schedule.start_at`; `campaign.started` is sent when it runs.',
  },
  {
    action: 'pause',
    summary: 'Pause a campaign',
    description: 'Nothing new is dialled; calls under way finish and are settled. `campaign.paused` with reason `requested`.',
  },
  {
    action: 'resume',
    summary: 'Resume a paused campaign',
    description: 'Back to `running` (or `scheduled` before its start), where it left off; `campaign.started` with `resumed: true`.',
  },
  {
    action: 'cancel',
    summary: 'Cancel a campaign',
    description: 'Final: contacts not yet called are `skipped`; calls under way finish. `campaign.completed` with reason `cancelled`.',
  },
];

export const campaignRoutes: FastifyPluginAsyncZod<CampaignRouteOptions> = async (app, { prisma, unavailable, wake }) => {
  // Scoped to this plugin: the import takes the contacts import's CSV.
  acceptCsvImports(app);

  app.post('/campaigns', {
    schema: {
      tags,
      summary: 'Create a campaign',
      description: 'Created as a `draft`. Every setting but `name`, `assistant_id` and `from_numbers` has a default (docs/campaigns.md).',
      body: CampaignWrite,
      response: { 201: envelope(Campaign), ...commonErrors },
    },
    handler: async (request, reply) => {
      const data = await createCampaign(prisma, request.identity.organizationId, request.body);
      return reply.status(201).send({ success: true as const, message: 'Campaign created', data });
    },
  });

  app.get('/campaigns', {
    schema: {
      tags,
      summary: 'List campaigns',
      description: 'Newest first, each with its progress; `state` filters (repeat to widen).',
      querystring: pageQuery.extend({ state: repeated(z.enum(CAMPAIGN_STATES)).describe('Repeat to widen') }),
      response: { 200: pagedEnvelope(Campaign), ...commonErrors },
    },
    handler: async (request) => {
      const { page, per_page, state } = request.query;
      const { data, total } = await listCampaigns(prisma, request.identity.organizationId, state, page, per_page);
      return { success: true as const, message: 'Campaigns retrieved', data, pagination: paginationOf(page, per_page, total) };
    },
  });

  app.get('/campaigns/:campaign_id', {
    schema: { tags, summary: 'Get a campaign', params: CampaignParams, response: { 200: envelope(Campaign), ...missing, ...commonErrors } },
    handler: async (request) => ({
      success: true as const,
      message: 'Campaign retrieved',
      data: await getCampaign(prisma, request.identity.organizationId, request.params.campaign_id),
    }),
  });

  app.put('/campaigns/:campaign_id', {
    schema: {
      tags,
      summary: "Replace a campaign's settings",
      description:
        'The whole campaign, as at creation (omitted settings take their defaults). A draft, scheduled or paused campaign takes any change; ' +
        'a running one only `schedule` and `pacing`, which apply from its next tick; a completed or cancelled one none (409).',
      params: CampaignParams,
      body: CampaignWrite,
      response: { 200: envelope(Campaign), ...missing, ...conflict, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Campaign updated',
      data: await replaceCampaign(prisma, request.identity.organizationId, request.params.campaign_id, request.body),
    }),
  });

  app.delete('/campaigns/:campaign_id', {
    schema: {
      tags,
      summary: 'Delete a draft campaign',
      params: CampaignParams,
      response: { 204: z.undefined().describe('Deleted'), ...missing, ...conflict, ...commonErrors },
    },
    handler: async (request, reply) => {
      await deleteCampaign(prisma, request.identity.organizationId, request.params.campaign_id);
      return reply.status(204).send();
    },
  });

  for (const { action, summary, description } of ACTIONS) {
    app.post(`/campaigns/:campaign_id/${action}`, {
      schema: {
        tags,
        summary,
        description,
        params: CampaignParams,
        response: {
          200: envelope(Campaign),
          400: ErrorResponse.describe('`campaign_empty`: no contacts; `assistant_required`: its assistant was deleted'),
          503: ErrorResponse.describe('Calls from its numbers cannot be placed by this deployment (as initiate answers)'),
          ...missing,
          ...conflict,
          ...commonErrors,
        },
      },
      handler: async (request) => {
        const organizationId = request.identity.organizationId;
        const id = request.params.campaign_id;
        if (action === 'start' || action === 'resume') await checkPaths(prisma, organizationId, id, unavailable);
        const data = await transitionCampaign(prisma, organizationId, id, action);
        if (action === 'start' || action === 'resume') wake?.();
        return { success: true as const, message: `Campaign ${data.state}`, data };
      },
    });
  }

  app.get('/campaigns/:campaign_id/progress', {
    schema: { tags, summary: "Read a campaign's progress", params: CampaignParams, response: { 200: envelope(CampaignProgress), ...missing, ...commonErrors } },
    handler: async (request) => {
      const campaign = await getCampaign(prisma, request.identity.organizationId, request.params.campaign_id);
      return { success: true as const, message: 'Campaign progress retrieved', data: campaign.progress };
    },
  });

  app.post('/campaigns/:campaign_id/contacts', {
    schema: {
      tags,
      summary: 'Add contacts to a campaign',
      description:
        'By `contact_ids`, or by `filter` (the filters of GET /api/contacts, as JSON), or both. A contact is in a campaign once; contacts without a phone number are left out.',
      params: CampaignParams,
      body: CampaignContactsAdd,
      response: { 200: envelope(CampaignContactsAdded), ...missing, ...conflict, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Contacts added',
      data: await addCampaignContacts(prisma, request.identity.organizationId, request.params.campaign_id, request.body),
    }),
  });

  app.post('/campaigns/:campaign_id/contacts/import', {
    bodyLimit: IMPORT_BODY_LIMIT_BYTES,
    schema: {
      tags,
      summary: 'Import contacts into a campaign from CSV',
      description:
        'A `text/csv` file as the contacts import takes it (same columns, normalisation, custom-property coercion and per-row report): ' +
        'new people are created, known ones updated, and every row that landed is added to the campaign. Columns named `var.<name>` are ' +
        `not contact fields: they are that contact's \`{{var.<name>}}\` in this campaign's calls. At most ${MAX_IMPORT_ROWS} rows.`,
      params: CampaignParams,
      body: z.object({ contacts: z.array(z.record(z.string(), z.string())).max(MAX_IMPORT_ROWS) }).describe('text/csv'),
      response: {
        200: envelope(ImportReport.extend({ added: z.int(), already_in: z.int(), without_phone: z.int() })),
        ...missing,
        ...conflict,
        ...commonErrors,
      },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Contacts imported',
      data: await importCampaignContacts(prisma, request.identity.organizationId, request.params.campaign_id, request.body.contacts),
    }),
  });

  app.get('/campaigns/:campaign_id/contacts', {
    schema: {
      tags,
      summary: "List a campaign's contacts with where each stands",
      params: CampaignParams,
      querystring: pageQuery,
      response: { 200: pagedEnvelope(CampaignContact), ...missing, ...commonErrors },
    },
    handler: async (request) => {
      const { page, per_page } = request.query;
      const { data, total } = await listCampaignContacts(prisma, request.identity.organizationId, request.params.campaign_id, page, per_page);
      return { success: true as const, message: 'Campaign contacts retrieved', data, pagination: paginationOf(page, per_page, total) };
    },
  });
};

/** Starting needs a way to dial every calling number, as `initiate` does. */
export async function checkPaths(prisma: PrismaClient, organizationId: number, id: number, unavailable: (kind: string) => string | undefined): Promise<void> {
  const campaign = await prisma.campaign.findFirst({ where: { id, organizationId }, select: { fromNumbers: true } });
  if (!campaign) return;
  const numbers = await prisma.phoneNumber.findMany({
    where: { organizationId, number: { in: campaign.fromNumbers as string[] } },
    include: { connection: { select: { kind: true } } },
  });
  for (const number of numbers) {
    const why = unavailable(number.connection.kind);
    if (why) throw new AppError('telephony_unavailable', `Campaign ${id} calls from ${number.number}, and ${why}`);
  }
}
