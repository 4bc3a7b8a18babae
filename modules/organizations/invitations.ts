import type { Db, PrismaClient } from '../../prisma/client.js';
import { AppError, notFound } from '../../lib/errors.js';
import { hashPassword } from './passwords.js';
import { assignable, requireRole } from './roles.js';
import type { Person } from './accounts.js';
import type { SessionIdentity } from './sessions.js';
import { hashToken, newToken } from './tokens.js';

// An invitation is a link with a role: whoever opens it before it expires, and has no account elsewhere, joins with
// that role. Seven days, like GitHub's organisation invitations: long enough for a weekend, short for a leaked link.
export const INVITATION_TTL_MS = 7 * 24 * 3600_000;

type Actor = Pick<SessionIdentity, 'userId' | 'organizationId' | 'role'>;

function invitationOf(row: { id: number; email: string; role: string; invitedByUserId: number; createdAt: Date; expiresAt: Date }) {
  return {
    id: row.id,
    email: row.email,
    role: row.role as 'owner' | 'admin' | 'member',
    invited_by: row.invitedByUserId,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
  };
}

/** A new invitation and its link token (shown once); an earlier pending invitation of the same email is replaced. */
export async function createInvitation(prisma: PrismaClient, actor: Actor, input: { email: string; role: string }, now = new Date()) {
  requireRole(actor.role, 'manage_members');
  if (!assignable(actor.role, input.role)) throw new AppError('role_forbidden', 'Only an owner can invite an owner', { field: 'role' });
  const member = await prisma.user.findFirst({ where: { organizationId: actor.organizationId, email: input.email, removedAt: null } });
  if (member) throw new AppError('conflict', 'This person is a member already', { field: 'email' });
  const token = newToken();
  const row = await prisma.$transaction(async (tx) => {
    await tx.invitation.updateMany({
      where: { organizationId: actor.organizationId, email: input.email, acceptedAt: null, revokedAt: null },
      data: { revokedAt: now },
    });
    return tx.invitation.create({
      data: {
        organizationId: actor.organizationId,
        email: input.email,
        role: input.role,
        tokenHash: hashToken(token),
        invitedByUserId: actor.userId,
        createdAt: now,
        expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
      },
    });
  });
  return { token, invitation: invitationOf(row) };
}

export async function listInvitations(db: Db, organizationId: number, now = new Date()) {
  const rows = await db.invitation.findMany({ where: { organizationId, acceptedAt: null, revokedAt: null, expiresAt: { gt: now } }, orderBy: { id: 'asc' } });
  return rows.map(invitationOf);
}

export async function revokeInvitation(db: Db, actor: Actor, id: number): Promise<void> {
  requireRole(actor.role, 'manage_members');
  const result = await db.invitation.updateMany({
    where: { id, organizationId: actor.organizationId, acceptedAt: null, revokedAt: null },
    data: { revokedAt: new Date() },
  });
  if (result.count === 0) throw notFound('Invitation');
}

/** What the link offers, for its page: the organisation, email and role; null when it cannot be accepted. */
export async function findInvitation(db: Db, token: string, now = new Date()) {
  const row = await db.invitation.findUnique({ where: { tokenHash: hashToken(token) }, include: { organization: { select: { name: true } } } });
  if (!row || row.acceptedAt || row.revokedAt || row.expiresAt <= now) return null;
  return { email: row.email, role: row.role, organization_name: row.organization.name };
}

/**
 * Accepts an invitation once: a new person, or a person removed from this same organisation coming back. An email with
 * an account in another organisation is refused (a person belongs to one organisation).
 */
export async function acceptInvitation(prisma: PrismaClient, token: string, input: { name: string; password: string }, now = new Date()): Promise<Person> {
  const passwordHash = await hashPassword(input.password);
  return prisma.$transaction(async (tx) => {
    // The conditional update is the single use: of two requests with one link, one updates the row and one finds none.
    const claimed = await tx.invitation.updateMany({
      where: { tokenHash: hashToken(token), acceptedAt: null, revokedAt: null, expiresAt: { gt: now } },
      data: { acceptedAt: now },
    });
    if (claimed.count === 0) throw new AppError('link_invalid', 'This invitation link was used, revoked or has expired: ask for a new one');
    const invitation = await tx.invitation.findUniqueOrThrow({ where: { tokenHash: hashToken(token) } });
    const existing = await tx.user.findUnique({ where: { email: invitation.email } });
    const data = { name: input.name, passwordHash, role: invitation.role, removedAt: null };
    if (existing && (existing.organizationId !== invitation.organizationId || existing.removedAt === null)) {
      throw new AppError('conflict', 'This email has an account already: sign in with it, or ask to be invited with another email');
    }
    const user = existing
      ? await tx.user.update({ where: { id: existing.id }, data })
      : await tx.user.create({ data: { ...data, organizationId: invitation.organizationId, email: invitation.email } });
    return { id: user.id, organizationId: user.organizationId, email: user.email, name: user.name, role: user.role };
  });
}
