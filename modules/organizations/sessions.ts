import type { Db } from '../../prisma/client.js';
import { notFound } from '../../lib/errors.js';
import { hashToken, newToken } from './tokens.js';

// A session lasts 14 days from its last use and 30 days at most from sign-in: a daily user stays signed in, a lost
// laptop's session dies within two weeks, and no session outlives a month. Its row is read on every request, so
// deleting it (sign-out, sign-out everywhere, a password reset, removal from the organisation) ends it at once.
export const SESSION_IDLE_MS = 14 * 24 * 3600_000;
export const SESSION_MAX_MS = 30 * 24 * 3600_000;
// last_seen_at and the idle expiry move at most once a minute, so a page with ten requests writes once.
const TOUCH_EVERY_MS = 60_000;

/** Who a session signs in, as every session-authenticated request sees it. */
export interface SessionIdentity {
  sessionId: number;
  userId: number;
  organizationId: number;
  role: string;
  email: string;
  name: string | null;
}

export async function createSession(
  db: Db,
  input: { userId: number; organizationId: number; userAgent?: string | undefined },
  now = new Date(),
): Promise<{ token: string; expiresAt: Date }> {
  const token = newToken();
  const expiresAt = new Date(now.getTime() + SESSION_IDLE_MS);
  await db.session.create({
    data: {
      tokenHash: hashToken(token),
      userId: input.userId,
      organizationId: input.organizationId,
      userAgent: input.userAgent?.slice(0, 300) ?? null,
      createdAt: now,
      lastSeenAt: now,
      expiresAt,
    },
  });
  return { token, expiresAt };
}

/** The identity of a live session of a person still in the organisation, or null. */
export async function findSession(db: Db, token: string, now = new Date()): Promise<SessionIdentity | null> {
  const row = await db.session.findUnique({
    where: { tokenHash: hashToken(token) },
    select: {
      id: true,
      organizationId: true,
      createdAt: true,
      lastSeenAt: true,
      expiresAt: true,
      user: { select: { id: true, organizationId: true, role: true, email: true, name: true, removedAt: true } },
    },
  });
  if (!row || row.expiresAt <= now || row.user.removedAt || row.user.organizationId !== row.organizationId) return null;
  if (now.getTime() - row.lastSeenAt.getTime() > TOUCH_EVERY_MS) {
    const expiresAt = new Date(Math.min(now.getTime() + SESSION_IDLE_MS, row.createdAt.getTime() + SESSION_MAX_MS));
    await db.session.update({ where: { id: row.id }, data: { lastSeenAt: now, expiresAt } });
  }
  return { sessionId: row.id, userId: row.user.id, organizationId: row.organizationId, role: row.user.role, email: row.user.email, name: row.user.name };
}

export async function endSession(db: Db, token: string): Promise<void> {
  await db.session.deleteMany({ where: { tokenHash: hashToken(token) } });
}

/** Signs the person out everywhere, except the session `keepSessionId` when given (the one asking). */
export async function endSessionsOf(db: Db, userId: number, keepSessionId?: number): Promise<number> {
  const result = await db.session.deleteMany({ where: { userId, ...(keepSessionId !== undefined ? { id: { not: keepSessionId } } : {}) } });
  return result.count;
}

/** Ends one of the person's own sessions by its id; another person's session is "not found". */
export async function endOwnSession(db: Db, userId: number, sessionId: number): Promise<void> {
  if ((await db.session.deleteMany({ where: { id: sessionId, userId } })).count === 0) throw notFound('Session');
}

/** The person's live sessions, the most recently used first; `current` marks the one asking. */
export async function listSessions(db: Db, userId: number, currentSessionId: number, now = new Date()) {
  const rows = await db.session.findMany({ where: { userId, expiresAt: { gt: now } }, orderBy: { lastSeenAt: 'desc' } });
  return rows.map((s) => ({
    id: s.id,
    user_agent: s.userAgent,
    created_at: s.createdAt.toISOString(),
    last_seen_at: s.lastSeenAt.toISOString(),
    expires_at: s.expiresAt.toISOString(),
    current: s.id === currentSessionId,
  }));
}
