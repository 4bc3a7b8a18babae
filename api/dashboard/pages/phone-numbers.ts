import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError } from '../../../lib/errors.js';
import {
  createPhoneConnection,
  createPhoneNumber,
  deletePhoneConnection,
  deletePhoneNumber,
  getPhoneConnection,
  getPhoneNumber,
  PhoneConnectionCreate,
  PhoneConnectionParams,
  PhoneConnectionUpdate,
  PhoneNumberCreate,
  PhoneNumberParams,
  PhoneNumberUpdate,
  updatePhoneConnection,
  updatePhoneNumber,
} from '../../../modules/telephony/index.js';
import { STATUS_OF } from '../../http/error-handler.js';
import { formErrors, validated, type FieldErrors } from '../forms.js';
import { sendPage } from '../layout.js';
import { bodyOfForm, leavesOf } from '../schema-form.js';
import type { DashboardDeps } from '../deps.js';
import { connectionPage } from './phone-numbers/connection-page.js';
import { connectionBody, kindForm } from './phone-numbers/connection-forms.js';
import { numbersPage } from './phone-numbers/numbers-page.js';

// The organisation's phone numbers and carrier connections, through the same module functions and schemas as
// /api/phone-numbers and /api/phone-connections. Every change redirects to the list with what was done (a reload sends
// nothing twice); a refusal redraws the page with what was typed and the API's message at its field.

const session = { auth: 'session' as const };
const shapeOf = (schema: unknown) => (schema as z.ZodObject).shape as Record<string, z.ZodType>;
const NUMBER_LEAVES = leavesOf(shapeOf(PhoneNumberCreate));
const ASSISTANT_LEAVES = leavesOf(shapeOf(PhoneNumberUpdate)).filter((l) => l.key === 'assistant_id');

const PageQuery = z.object({
  page: z.coerce.number().int().min(1).max(100_000).catch(1),
  done: z.string().optional().catch(undefined),
});

const DONE: Record<string, string> = {
  'number-added': 'Number added.',
  'number-removed': 'Number removed.',
  'assistant-changed': 'Assistant changed: the next call to the number reaches it.',
  'connection-added': 'Connection added. Now add the numbers you have there.',
  'connection-removed': 'Connection removed, with its numbers.',
  saved: 'Saved.',
};

const formOf = (request: FastifyRequest): Record<string, unknown> =>
  request.body !== null && typeof request.body === 'object' && !Array.isArray(request.body) ? (request.body as Record<string, unknown>) : {};

/** A refusal as the form shows it, with the status the API gives it. A row of another organisation (or one removed since) stays a 404, as in the API. */
function refusal(error: unknown): { status: number; errors: FieldErrors } {
  if (error instanceof AppError && error.kind === 'not_found') throw error;
  const errors = formErrors(error);
  return { status: error instanceof AppError ? STATUS_OF[error.kind] : 422, errors };
}

export function registerPhoneNumberPages(app: FastifyInstance, deps: DashboardDeps): void {
  const org = (request: FastifyRequest) => request.signedIn!.organizationId;
  const query = (request: FastifyRequest) => request.query as z.output<typeof PageQuery>;
  const pageOf = (page: number) => (page > 1 ? `&page=${page}` : '');

  app.get('/phone-numbers', { config: session, schema: { querystring: PageQuery } }, async (request, reply) => {
    const { page, done } = query(request);
    return sendPage(reply, await numbersPage(request, deps, { page, notice: done ? DONE[done] : undefined }));
  });

  app.post('/phone-numbers', { config: session }, async (request, reply) => {
    const form = formOf(request);
    try {
      await createPhoneNumber(deps.prisma, org(request), validated(PhoneNumberCreate, bodyOfForm(NUMBER_LEAVES, form)));
      return reply.redirect('/phone-numbers?done=number-added');
    } catch (error) {
      const { status, errors } = refusal(error);
      // The one conflict a new number meets is the number itself, already registered.
      const shown = error instanceof AppError && error.kind === 'conflict' ? { number: error.message } : errors;
      return sendPage(reply, await numbersPage(request, deps, { page: 1, number: { values: form, errors: shown } }), status);
    }
  });

  app.post(
    '/phone-numbers/:number_id/assistant',
    { config: session, schema: { params: PhoneNumberParams, querystring: PageQuery } },
    async (request, reply) => {
      const { number_id } = request.params as z.output<typeof PhoneNumberParams>;
      const { page } = query(request);
      const form = formOf(request);
      // Another organisation's number is not found before anything about the form is said.
      await getPhoneNumber(deps.prisma, org(request), number_id);
      try {
        await updatePhoneNumber(deps.prisma, org(request), number_id, validated(PhoneNumberUpdate, bodyOfForm(ASSISTANT_LEAVES, form)));
        return reply.redirect(`/phone-numbers?done=assistant-changed${pageOf(page)}`);
      } catch (error) {
        const { status, errors } = refusal(error);
        return sendPage(reply, await numbersPage(request, deps, { page, row: { id: number_id, values: form, errors } }), status);
      }
    },
  );

  app.post('/phone-numbers/:number_id/delete', { config: session, schema: { params: PhoneNumberParams, querystring: PageQuery } }, async (request, reply) => {
    const { number_id } = request.params as z.output<typeof PhoneNumberParams>;
    await deletePhoneNumber(deps.prisma, org(request), number_id);
    return reply.redirect(`/phone-numbers?done=number-removed${pageOf(query(request).page)}`);
  });

  app.post('/phone-numbers/connections', { config: session }, async (request, reply) => {
    const form = formOf(request);
    const kind = kindForm(typeof form.kind === 'string' ? form.kind : '');
    try {
      // A kind this page has no form for is passed on as posted, for the API to refuse.
      const body = kind ? { kind: kind.kind, ...connectionBody(kind, form, false) } : { kind: form.kind };
      await createPhoneConnection(deps.prisma, deps.secrets, org(request), validated(PhoneConnectionCreate, body));
      return reply.redirect('/phone-numbers?done=connection-added');
    } catch (error) {
      const { status, errors } = refusal(error);
      const state = kind
        ? { page: 1, connection: { kind: kind.kind, values: form, errors } }
        : { page: 1, alert: errors.kind ?? Object.values(errors)[0] ?? 'Choose a Twilio account or a SIP trunk.' };
      return sendPage(reply, await numbersPage(request, deps, state), status);
    }
  });

  app.get(
    '/phone-numbers/connections/:connection_id',
    { config: session, schema: { params: PhoneConnectionParams, querystring: PageQuery } },
    async (request, reply) => {
      const { connection_id } = request.params as z.output<typeof PhoneConnectionParams>;
      const { done } = query(request);
      return sendPage(reply, await connectionPage(request, deps, connection_id, { notice: done ? DONE[done] : undefined }));
    },
  );

  app.post('/phone-numbers/connections/:connection_id', { config: session, schema: { params: PhoneConnectionParams } }, async (request, reply) => {
    const { connection_id } = request.params as z.output<typeof PhoneConnectionParams>;
    const form = formOf(request);
    const stored = await getPhoneConnection(deps.prisma, deps.secrets, org(request), connection_id);
    const kind = kindForm(stored.kind);
    if (!kind) return reply.redirect(`/phone-numbers/connections/${connection_id}`);
    try {
      await updatePhoneConnection(deps.prisma, deps.secrets, org(request), connection_id, validated(PhoneConnectionUpdate, connectionBody(kind, form, true)));
      return reply.redirect(`/phone-numbers/connections/${connection_id}?done=saved`);
    } catch (error) {
      const { status, errors } = refusal(error);
      return sendPage(reply, await connectionPage(request, deps, connection_id, { values: form, errors }), status);
    }
  });

  app.post('/phone-numbers/connections/:connection_id/delete', { config: session, schema: { params: PhoneConnectionParams } }, async (request, reply) => {
    const { connection_id } = request.params as z.output<typeof PhoneConnectionParams>;
    await deletePhoneConnection(deps.prisma, org(request), connection_id);
    return reply.redirect('/phone-numbers?done=connection-removed');
  });
}
