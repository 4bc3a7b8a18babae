import type { PrismaClient } from '../../prisma/client.js';
import { AppError, notFound } from '../../lib/errors.js';
import { assignable, requireRole } from './roles.js';
import type { SessionIdentity } from './sessions.js';

// The people of an organisation. A removed person keeps their row (assistants they made name them) but loses
// everything that acts for them at once: sessions, API keys (a key acts with its creator's permissions, and a removed
// person has none), and the invitations they sent.

type Actor = Pick<SessionIdentity, 'userId' | 'organizationId' | 'role'>;

export async function listMembers(prisma: PrismaClient, organizationId: number) {
  const users = await prisma.user.findMany({ where: { organizationId, removedAt: null }, orderBy: { id: 'asc' } });
  return users.map((u) => ({
    user_id: u.id,
    email: u.email,
    name: u.name,
    role: u.role as 'owner' | 'admin' | 'member',
    created_at: u.createdAt.toISOString(),
    has_password: u.passwordHash !== null,
  }));
}

export async function changeRole(prisma: PrismaClient, actor: Actor, userId: number, role: string): Promise<void> {
  requireRole(actor.role, 'manage_members');
  await withMember(prisma, actor, userId, async (tx, target) => {
    if (!assignable(actor.role, target.role) || !assignable(actor.role, role)) {
      throw new AppError('role_forbidden', 'Only an owner can make someone an owner or change an owner');
    }
    if (target.role === 'owner' && role !== 'owner') await keepAnOwner(tx, actor.organizationId, userId);
    await tx.user.update({ where: { id: userId }, data: { role } });
  });
}

/** Removes a person from the organisation (oneself included: leaving), never the last owner. */
export async function removeMember(prisma: PrismaClient, actor: Actor, userId: number): Promise<void> {
  if (userId !== actor.userId) requireRole(actor.role, 'manage_members');
  await withMember(prisma, actor, userId, async (tx, target) => {
    if (userId !== actor.userId && !assignable(actor.role, target.role)) throw new AppError('role_forbidden', 'Only an owner can remove an owner');
    if (target.role === 'owner') await keepAnOwner(tx, actor.organizationId, userId);
    const now = new Date();
    await tx.user.update({ where: { id: userId }, data: { removedAt: now } });
    await tx.session.deleteMany({ where: { userId } });
    await tx.apiKey.updateMany({ where: { userId, revokedAt: null }, data: { revokedAt: now } });
    await tx.invitation.updateMany({ where: { invitedByUserId: userId, acceptedAt: null, revokedAt: null }, data: { revokedAt: now } });
  });
}

type Tx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

/**
 * Runs `work` on a person of the actor's organisation with the organisation's row locked, so that two owners demoting
 * each other at once cannot both succeed and leave no owner. Another organisation's person is "not found".
 */
async function withMember(prisma: PrismaClient, actor: Actor, userId: number, work: (tx: Tx, target: { role: string }) => Promise<void>): Promise<void> {
  await prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM organizations WHERE id = ${actor.organizationId} FOR UPDATE`;
    const target = await tx.user.findFirst({ where: { id: userId, organizationId: actor.organizationId, removedAt: null } });
    if (!target) throw notFound('Member');
    await work(tx, target);
  });
}

async function keepAnOwner(tx: Tx, organizationId: number, leavingUserId: number): Promise<void> {
  const others = await tx.user.count({ where: { organizationId, role: 'owner', removedAt: null, id: { not: leavingUserId } } });
  if (others === 0) throw new AppError('last_owner', 'The organisation needs an owner: make someone else an owner first');
}
