import crypto from 'node:crypto';
import type { Db } from '../../prisma/client.js';
import { notFound } from '../../lib/errors.js';
import { requireRole } from './roles.js';

// Keys look like `vak_<43 base64url chars>`: 256 random bits, so a fast SHA-256 is a safe way to store them, and a
// lookup is one indexed equality. The first 12 characters are kept as a visible prefix to recognise a key by.
const KEY_PREFIX = 'vak_';
const PREFIX_LENGTH = 12;

export interface KeyIdentity {
  apiKeyId: number;
  organizationId: number;
  userId: number;
}

export function hashApiKey(key: string): string {
  // The one-shot form: every key-authenticated request hashes its key, and a Hash object per request cost three times
  // as much as the digest itself.
  return crypto.hash('sha256', key, 'hex');
}

export function generateApiKey(): string {
  return KEY_PREFIX + crypto.randomBytes(32).toString('base64url');
}

export async function createApiKey(
  db: Db,
  input: { organizationId: number; userId: number; name?: string | null },
): Promise<{ key: string; id: number; prefix: string; createdAt: Date }> {
  const key = generateApiKey();
  const row = await db.apiKey.create({
    data: {
      organizationId: input.organizationId,
      userId: input.userId,
      name: input.name ?? null,
      prefix: key.slice(0, PREFIX_LENGTH),
      keyHash: hashApiKey(key),
    },
  });
  return { key, id: row.id, prefix: row.prefix, createdAt: row.createdAt };
}

/** The identity behind a key, or null when the key is unknown or revoked. */
export async function findActiveKey(db: Db, keyHash: string): Promise<KeyIdentity | null> {
  const row = await db.apiKey.findUnique({
    where: { keyHash },
    select: { id: true, organizationId: true, userId: true, revokedAt: true },
  });
  if (!row || row.revokedAt) return null;
  return { apiKeyId: row.id, organizationId: row.organizationId, userId: row.userId };
}

export async function listApiKeys(db: Db, organizationId: number) {
  return db.apiKey.findMany({
    where: { organizationId },
    orderBy: { id: 'asc' },
    select: { id: true, name: true, prefix: true, userId: true, createdAt: true, lastUsedAt: true, revokedAt: true },
  });
}

/** Revokes a key by its visible prefix; answers whether a live key was revoked. */
export async function revokeApiKey(db: Db, prefix: string): Promise<boolean> {
  const result = await db.apiKey.updateMany({ where: { prefix, revokedAt: null }, data: { revokedAt: new Date() } });
  return result.count > 0;
}

export async function touchApiKeys(db: Db, ids: number[], at: Date): Promise<void> {
  if (ids.length === 0) return;
  await db.apiKey.updateMany({ where: { id: { in: ids } }, data: { lastUsedAt: at } });
}

/** The organisation's keys as the dashboard lists them: prefix, creator and last use, newest first; never the key. */
export async function listKeysWithCreators(db: Db, organizationId: number) {
  const rows = await db.apiKey.findMany({
    where: { organizationId },
    orderBy: { id: 'desc' },
    include: { user: { select: { id: true, email: true, name: true } } },
  });
  return rows.map(keyItem);
}

function keyItem(row: {
  id: number;
  name: string | null;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  user: { id: number; email: string; name: string | null };
}) {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    created_by: { user_id: row.user.id, email: row.user.email, name: row.user.name },
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
  };
}

/** A key made in the dashboard by a person with the right to (roles.ts); the key itself is in the answer only. */
export async function issueApiKey(db: Db, actor: { organizationId: number; userId: number; role: string }, name: string) {
  requireRole(actor.role, 'manage_keys');
  const created = await createApiKey(db, { organizationId: actor.organizationId, userId: actor.userId, name });
  const row = await db.apiKey.findUniqueOrThrow({ where: { id: created.id }, include: { user: { select: { id: true, email: true, name: true } } } });
  return { ...keyItem(row), key: created.key };
}

/** Revokes one of the organisation's keys by id; another organisation's key is "not found", a revoked one too. */
export async function revokeApiKeyById(db: Db, actor: { organizationId: number; role: string }, id: number): Promise<void> {
  requireRole(actor.role, 'manage_keys');
  const result = await db.apiKey.updateMany({ where: { id, organizationId: actor.organizationId, revokedAt: null }, data: { revokedAt: new Date() } });
  if (result.count === 0) throw notFound('API key');
}
