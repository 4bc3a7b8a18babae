import type { Db, PrismaClient } from '../../prisma/client.js';
import { AppError } from '../../lib/errors.js';
import { hashPassword } from './passwords.js';
import { hashToken, newToken } from './tokens.js';

// One hour: the time to read a mail, and little for a link that leaks from a mailbox.
export const RESET_TTL_MS = 3600_000;

/**
 * A reset link's token for the account of `email`, or null when there is none (the caller answers the same either way,
 * so the form does not tell who has an account). A person removed from their organisation gets none.
 */
export async function requestPasswordReset(db: Db, email: string, now = new Date()): Promise<{ token: string; email: string } | null> {
  const user = await db.user.findUnique({ where: { email } });
  if (!user || user.removedAt) return null;
  const token = newToken();
  await db.passwordReset.create({ data: { userId: user.id, tokenHash: hashToken(token), createdAt: now, expiresAt: new Date(now.getTime() + RESET_TTL_MS) } });
  return { token, email: user.email };
}

/** Whether a reset link can still be used, for its page. */
export async function isResetUsable(db: Db, token: string, now = new Date()): Promise<boolean> {
  return (await db.passwordReset.count({ where: { tokenHash: hashToken(token), usedAt: null, expiresAt: { gt: now } } })) > 0;
}

/**
 * Sets the password a reset link was sent for, once: the link and every other pending link of the account are spent,
 * and every session of the account ends (whoever knew the old password is signed out).
 */
export async function resetPassword(prisma: PrismaClient, token: string, password: string, now = new Date()): Promise<{ userId: number }> {
  const passwordHash = await hashPassword(password);
  return prisma.$transaction(async (tx) => {
    const claimed = await tx.passwordReset.updateMany({ where: { tokenHash: hashToken(token), usedAt: null, expiresAt: { gt: now } }, data: { usedAt: now } });
    if (claimed.count === 0) throw new AppError('link_invalid', 'This reset link was used or has expired: ask for a new one');
    const reset = await tx.passwordReset.findUniqueOrThrow({ where: { tokenHash: hashToken(token) }, include: { user: true } });
    if (reset.user.removedAt) throw new AppError('link_invalid', 'This reset link was used or has expired: ask for a new one');
    await tx.passwordReset.updateMany({ where: { userId: reset.userId, usedAt: null }, data: { usedAt: now } });
    await tx.user.update({ where: { id: reset.userId }, data: { passwordHash } });
    await tx.session.deleteMany({ where: { userId: reset.userId } });
    return { userId: reset.userId };
  });
}
