import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { PrismaClient } from '../../prisma/client.js';
import { BillingQuery, BillingSummary, billingSummary } from '../../modules/organizations/index.js';
import { envelope } from '../schemas/common.js';
import { sessionDescription, sessionErrors, sessionSecurity } from './session-schemas.js';

export const billingRoutes: FastifyPluginAsyncZod<{ prisma: PrismaClient }> = async (app, { prisma }) => {
  app.get('/billing', {
    config: { auth: 'session', sessionOnly: 'Billing' },
    schema: {
      tags: ['Session-only'],
      security: sessionSecurity,
      summary: "The organisation's usage, cost and limits for a period",
      description: `${sessionDescription} Owners and admins. Cost by component and by assistant, from each call's metered usage; no payment processor. The period is a preset, or from and to (an instant with its offset, or a date read as midnight in the time zone), as an analytics chart's.`,
      querystring: BillingQuery,
      response: { 200: envelope(BillingSummary), ...sessionErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Billing retrieved',
      data: await billingSummary(prisma, request.signedIn!, request.query),
    }),
  });
};
