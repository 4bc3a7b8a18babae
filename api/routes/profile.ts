import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PrismaClient } from '../../prisma/client.js';
import { idParam } from '../../lib/zod/query.js';
import {
  changePassword,
  endOwnSession,
  endSessionsOf,
  getProfile,
  listSessions,
  PasswordChange,
  Profile,
  ProfileUpdate,
  SessionItem,
  updateProfile,
} from '../../modules/organizations/index.js';
import { envelope, ErrorResponse } from '../schemas/common.js';
import { sessionDescription, sessionErrors, sessionSecurity } from './session-schemas.js';

const tags = ['Session-only'];
const config = { auth: 'session' as const, sessionOnly: "The user's own profile" };

export const profileRoutes: FastifyPluginAsyncZod<{ prisma: PrismaClient }> = async (app, { prisma }) => {
  app.get('/users/me', {
    config,
    schema: {
      tags,
      security: sessionSecurity,
      summary: 'Read your profile',
      description: sessionDescription,
      response: { 200: envelope(Profile), ...sessionErrors },
    },
    handler: async (request) => ({ success: true as const, message: 'Profile retrieved', data: await getProfile(prisma, request.signedIn!.userId) }),
  });

  app.patch('/users/me', {
    config,
    schema: {
      tags,
      security: sessionSecurity,
      summary: 'Change your name or email',
      description: `${sessionDescription} A new email needs \`current_password\`.`,
      body: ProfileUpdate,
      response: { 200: envelope(Profile), 409: ErrorResponse.describe('Another account uses this email'), ...sessionErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Profile updated',
      data: await updateProfile(prisma, request.signedIn!.userId, request.body),
    }),
  });

  app.put('/users/me/password', {
    config,
    schema: {
      tags,
      security: sessionSecurity,
      summary: 'Change your password',
      description: `${sessionDescription} Every other session of yours ends.`,
      body: PasswordChange,
      response: { 200: envelope(z.object({})), ...sessionErrors },
    },
    handler: async (request) => {
      const me = request.signedIn!;
      await changePassword(prisma, me.userId, me.sessionId, request.body.current_password, request.body.new_password);
      return { success: true as const, message: 'Password changed; your other sessions ended', data: {} };
    },
  });

  app.get('/users/me/sessions', {
    config,
    schema: {
      tags,
      security: sessionSecurity,
      summary: 'List your sessions',
      description: sessionDescription,
      response: { 200: envelope(z.array(SessionItem)), ...sessionErrors },
    },
    handler: async (request) => {
      const me = request.signedIn!;
      return { success: true as const, message: 'Sessions retrieved', data: await listSessions(prisma, me.userId, me.sessionId) };
    },
  });

  app.delete('/users/me/sessions', {
    config,
    schema: {
      tags,
      security: sessionSecurity,
      summary: 'Sign out everywhere else',
      description: `${sessionDescription} Ends every session of yours but this one.`,
      response: { 200: envelope(z.object({ ended: z.int() })), ...sessionErrors },
    },
    handler: async (request) => {
      const me = request.signedIn!;
      return { success: true as const, message: 'Other sessions ended', data: { ended: await endSessionsOf(prisma, me.userId, me.sessionId) } };
    },
  });

  app.delete('/users/me/sessions/:session_id', {
    config,
    schema: {
      tags,
      security: sessionSecurity,
      summary: 'End one of your sessions',
      description: sessionDescription,
      params: z.object({ session_id: idParam }),
      response: { 200: envelope(z.object({ id: z.int() })), 404: ErrorResponse.describe('No such session of yours'), ...sessionErrors },
    },
    handler: async (request) => {
      await endOwnSession(prisma, request.signedIn!.userId, request.params.session_id);
      return { success: true as const, message: 'Session ended', data: { id: request.params.session_id } };
    },
  });
};
