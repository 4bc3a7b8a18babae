import type { FastifyRequest } from 'fastify';
import type { PrismaClient } from '../../prisma/client.js';
import type { MailTransport } from '../../lib/mail.js';
import { createInvitation, getProfile, invitationMail, requestPasswordReset, resetMail } from '../../modules/organizations/index.js';
import { publicBaseUrl } from '../http/public-url.js';

// The two one-time links the dashboard sends, made into absolute URLs (they are read in a mail, outside this browser)
// and mailed. A mail that cannot be sent is logged without its address or link, and the invitation still stands: its
// link is in the answer for the inviter to hand over.

export async function inviteAndMail(
  prisma: PrismaClient,
  mail: MailTransport,
  request: FastifyRequest,
  publicUrl: string | undefined,
  input: { email: string; role: string },
) {
  const signedIn = request.signedIn!;
  const { token, invitation } = await createInvitation(prisma, signedIn, input);
  const url = `${publicBaseUrl(request, publicUrl)}/join?token=${token}`;
  const { organization_name } = await getProfile(prisma, signedIn.userId);
  await mail
    .send(invitationMail({ to: invitation.email, organizationName: organization_name, role: invitation.role, url }))
    .catch((err: unknown) => request.log.warn({ err }, 'invitation mail not sent'));
  return { ...invitation, url };
}

/** Mails a reset link when the email has an account; says nothing either way, so the form tells no one who has one. */
export async function mailResetLink(
  prisma: PrismaClient,
  mail: MailTransport,
  request: FastifyRequest,
  publicUrl: string | undefined,
  email: string,
): Promise<void> {
  const reset = await requestPasswordReset(prisma, email);
  if (!reset) return;
  const url = `${publicBaseUrl(request, publicUrl)}/reset?token=${reset.token}`;
  await mail.send(resetMail({ to: reset.email, url })).catch((err: unknown) => request.log.warn({ err }, 'password reset mail not sent'));
}
