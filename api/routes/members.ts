import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PrismaClient } from '../../prisma/client.js';
import type { MailTransport } from '../../lib/mail.js';
import { idParam } from '../../lib/zod/query.js';
import {
  changeRole,
  Invitation,
  InvitationCreate,
  InvitationCreated,
  listInvitations,
  listMembers,
  Member,
  removeMember,
  revokeInvitation,
  RoleChange,
} from '../../modules/organizations/index.js';
import { inviteAndMail } from '../dashboard/links.js';
import { envelope, ErrorResponse } from '../schemas/common.js';
import { sessionDescription, sessionErrors, sessionSecurity } from './session-schemas.js';

const tags = ['Session-only'];
const config = { auth: 'session' as const, sessionOnly: 'Organisation membership' };
const UserParams = z.object({ user_id: idParam });
const notFound = ErrorResponse.describe('No such member in the organisation');
const lastOwner = ErrorResponse.describe('The organisation would be left without an owner (`last_owner`)');

export const memberRoutes: FastifyPluginAsyncZod<{ prisma: PrismaClient; mail: MailTransport; publicUrl: string | undefined }> = async (
  app,
  { prisma, mail, publicUrl },
) => {
  app.get('/organization/members', {
    config,
    schema: {
      tags,
      security: sessionSecurity,
      summary: "List the organisation's members",
      description: sessionDescription,
      response: { 200: envelope(z.array(Member)), ...sessionErrors },
    },
    handler: async (request) => ({ success: true as const, message: 'Members retrieved', data: await listMembers(prisma, request.signedIn!.organizationId) }),
  });

  app.patch('/organization/members/:user_id', {
    config,
    schema: {
      tags,
      security: sessionSecurity,
      summary: "Change a member's role",
      description: `${sessionDescription} Owners change any role; admins only between admin and member.`,
      params: UserParams,
      body: RoleChange,
      response: { 200: envelope(z.array(Member)), 404: notFound, 409: lastOwner, ...sessionErrors },
    },
    handler: async (request) => {
      await changeRole(prisma, request.signedIn!, request.params.user_id, request.body.role);
      return { success: true as const, message: 'Role changed', data: await listMembers(prisma, request.signedIn!.organizationId) };
    },
  });

  app.delete('/organization/members/:user_id', {
    config,
    schema: {
      tags,
      security: sessionSecurity,
      summary: 'Remove a member (or leave)',
      description: `${sessionDescription} Their sessions end and the API keys they created are revoked at once; the last owner cannot be removed.`,
      params: UserParams,
      response: { 200: envelope(z.object({ user_id: z.int() })), 404: notFound, 409: lastOwner, ...sessionErrors },
    },
    handler: async (request) => {
      await removeMember(prisma, request.signedIn!, request.params.user_id);
      // Their keys were revoked: this process stops accepting them now, the others on the change notification.
      request.server.keyCache.clear();
      return { success: true as const, message: 'Member removed', data: { user_id: request.params.user_id } };
    },
  });

  app.get('/organization/invitations', {
    config,
    schema: {
      tags,
      security: sessionSecurity,
      summary: 'List pending invitations',
      description: sessionDescription,
      response: { 200: envelope(z.array(Invitation)), ...sessionErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Invitations retrieved',
      data: await listInvitations(prisma, request.signedIn!.organizationId),
    }),
  });

  app.post('/organization/invitations', {
    config,
    schema: {
      tags,
      security: sessionSecurity,
      summary: 'Invite a person by link and email',
      description: `${sessionDescription} Owners and admins. The link (in the answer, once, and mailed to the person) works once, for 7 days.`,
      body: InvitationCreate,
      response: { 201: envelope(InvitationCreated), 409: ErrorResponse.describe('Already a member'), ...sessionErrors },
    },
    handler: async (request, reply) => {
      const data = await inviteAndMail(prisma, mail, request, publicUrl, request.body);
      return reply.status(201).send({ success: true as const, message: 'Invitation created', data });
    },
  });

  app.delete('/organization/invitations/:invitation_id', {
    config,
    schema: {
      tags,
      security: sessionSecurity,
      summary: 'Revoke a pending invitation',
      description: sessionDescription,
      params: z.object({ invitation_id: idParam }),
      response: { 200: envelope(z.object({ id: z.int() })), 404: ErrorResponse.describe('No pending invitation with this id'), ...sessionErrors },
    },
    handler: async (request) => {
      await revokeInvitation(prisma, request.signedIn!, request.params.invitation_id);
      return { success: true as const, message: 'Invitation revoked', data: { id: request.params.invitation_id } };
    },
  });
};
