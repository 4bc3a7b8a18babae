import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PrismaClient } from '../../prisma/client.js';
import { idParam } from '../../lib/zod/query.js';
import {
  CeremonyOptions,
  deletePasskey,
  listPasskeys,
  PasskeyCreate,
  PasskeyItem,
  passkeyRegistrationOptions,
  registerPasskey,
} from '../../modules/organizations/index.js';
import { relyingParty } from '../auth/relying-party.js';
import { envelope, ErrorResponse } from '../schemas/common.js';
import { sessionDescription, sessionErrors, sessionSecurity } from './session-schemas.js';

// A person's passkeys, part of their own profile (session-only). Adding one is two requests: the options, which the
// page hands to `navigator.credentials.create()`, and the browser's answer.

const tags = ['Session-only'];
const config = { auth: 'session' as const, sessionOnly: "The user's own profile" };
/** The library's options as the loose object the answer schema declares. */
type CeremonyOptionsOut = z.infer<typeof CeremonyOptions>;
const unavailable = { 503: ErrorResponse.describe('Passkeys need PUBLIC_URL: the origin they are bound to') };

export const passkeyRoutes: FastifyPluginAsyncZod<{ prisma: PrismaClient; publicUrl?: string | undefined }> = async (app, { prisma, publicUrl }) => {
  app.get('/users/me/passkeys', {
    config,
    schema: {
      tags,
      security: sessionSecurity,
      summary: 'List your passkeys',
      description: sessionDescription,
      response: { 200: envelope(z.array(PasskeyItem)), ...sessionErrors },
    },
    handler: async (request) => ({ success: true as const, message: 'Passkeys retrieved', data: await listPasskeys(prisma, request.signedIn!.userId) }),
  });

  app.post('/users/me/passkeys/options', {
    config,
    schema: {
      tags,
      security: sessionSecurity,
      summary: 'Start adding a passkey',
      description: `${sessionDescription} Answers the options for \`navigator.credentials.create()\`; their challenge is good for one answer within five minutes.`,
      response: { 200: envelope(CeremonyOptions), ...unavailable, ...sessionErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Passkey options created',
      data: (await passkeyRegistrationOptions(prisma, request.signedIn!.userId, relyingParty(request, publicUrl))) as unknown as CeremonyOptionsOut,
    }),
  });

  app.post('/users/me/passkeys', {
    config,
    schema: {
      tags,
      security: sessionSecurity,
      summary: 'Add a passkey',
      description: `${sessionDescription} Takes the browser's answer to the options of \`POST /api/users/me/passkeys/options\`.`,
      body: PasskeyCreate,
      response: {
        201: envelope(PasskeyItem),
        409: ErrorResponse.describe('This passkey is registered already'),
        ...unavailable,
        ...sessionErrors,
        401: ErrorResponse.describe('Not signed in, or the answer was not accepted (wrong challenge, origin or signature)'),
      },
    },
    handler: async (request, reply) => {
      const item = await registerPasskey(prisma, request.signedIn!.userId, relyingParty(request, publicUrl), request.body as never);
      return reply.code(201).send({ success: true as const, message: 'Passkey added', data: item });
    },
  });

  app.delete('/users/me/passkeys/:passkey_id', {
    config,
    schema: {
      tags,
      security: sessionSecurity,
      summary: 'Remove a passkey',
      description: sessionDescription,
      params: z.object({ passkey_id: idParam }),
      response: { 200: envelope(z.object({ id: z.int() })), 404: ErrorResponse.describe('No such passkey of yours'), ...sessionErrors },
    },
    handler: async (request) => {
      await deletePasskey(prisma, request.signedIn!.userId, request.params.passkey_id);
      return { success: true as const, message: 'Passkey removed', data: { id: request.params.passkey_id } };
    },
  });
};
