import type { Db, PrismaClient } from '../../prisma/client.js';
import { Prisma } from '../../prisma/generated/client.js';
import { AppError } from '../../lib/errors.js';
import { BOOTSTRAP_LOCK_KEY } from './bootstrap.js';
import { checkPassword, hashPassword } from './passwords.js';
import { endSessionsOf } from './sessions.js';

// A person's account: first-run setup, signing in, the profile and its password.

export interface Person {
  id: number;
  organizationId: number;
  email: string;
  name: string | null;
  role: string;
}

/** Whether any organisation exists; before the first, the dashboard offers setup instead of sign-in. */
export async function isSetUp(db: Db): Promise<boolean> {
  return (await db.organization.count()) > 0;
}

/**
 * The first organisation and its owner, made from the browser of a fresh installation. Refused once any organisation
 * exists (more are made by the command-line bootstrap, and people join by invitation), under the bootstrap's lock so
 * that two browsers racing through setup make one organisation.
 */
export async function setUpOrganization(
  prisma: PrismaClient,
  input: { organization_name: string; name: string; email: string; password: string },
): Promise<Person> {
  const passwordHash = await hashPassword(input.password);
  return prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${BOOTSTRAP_LOCK_KEY})`;
    if (await isSetUp(tx)) throw new AppError('already_set_up', 'This installation has an organisation already: sign in, or ask its owner for an invitation');
    const organization = await tx.organization.create({ data: { name: input.organization_name } });
    const user = await tx.user.create({ data: { organizationId: organization.id, email: input.email, name: input.name, passwordHash, role: 'owner' } });
    return personOf(user);
  });
}

/** The person an email and password sign in; the same refusal, after the same work, for an unknown email and a wrong password. */
export async function signIn(db: Db, email: string, password: string): Promise<Person> {
  const user = await db.user.findUnique({ where: { email } });
  const active = user && !user.removedAt ? user : null;
  const ok = await checkPassword(active?.passwordHash, password);
  if (!active || !ok) throw new AppError('invalid_credentials', 'Wrong email or password');
  return personOf(active);
}

export async function getProfile(db: Db, userId: number) {
  const user = await db.user.findUniqueOrThrow({ where: { id: userId }, include: { organization: { select: { name: true } } } });
  return {
    user_id: user.id,
    organization_id: user.organizationId,
    organization_name: user.organization.name,
    email: user.email,
    name: user.name,
    role: user.role as 'owner' | 'admin' | 'member',
  };
}

/** A new name or email. A new email is what a password reset is sent to, so it takes the current password. */
export async function updateProfile(
  db: Db,
  userId: number,
  patch: { name?: string | undefined; email?: string | undefined; current_password?: string | undefined },
) {
  const user = await db.user.findUniqueOrThrow({ where: { id: userId } });
  const data: { name?: string; email?: string } = {};
  if (patch.name !== undefined) data.name = patch.name;
  if (patch.email !== undefined && patch.email !== user.email) {
    if (!(await checkPassword(user.passwordHash, patch.current_password ?? ''))) {
      throw new AppError('invalid_credentials', 'Enter your current password to change your email', { field: 'current_password' });
    }
    data.email = patch.email;
  }
  if (Object.keys(data).length > 0) {
    try {
      await db.user.update({ where: { id: userId }, data });
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002')
        throw new AppError('conflict', 'Another account uses this email', { field: 'email' });
      throw error;
    }
  }
  return getProfile(db, userId);
}

/** A new password, given the current one; every other session of the person ends (whoever had the old one is out). */
export async function changePassword(db: Db, userId: number, sessionId: number, currentPassword: string, newPassword: string): Promise<void> {
  const user = await db.user.findUniqueOrThrow({ where: { id: userId } });
  if (!(await checkPassword(user.passwordHash, currentPassword)))
    throw new AppError('invalid_credentials', 'Your current password is not this', { field: 'current_password' });
  await db.user.update({ where: { id: userId }, data: { passwordHash: await hashPassword(newPassword) } });
  await endSessionsOf(db, userId, sessionId);
}

export function personOf(user: { id: number; organizationId: number; email: string; name: string | null; role: string }): Person {
  return { id: user.id, organizationId: user.organizationId, email: user.email, name: user.name, role: user.role };
}
