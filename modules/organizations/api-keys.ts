import crypto from 'node:crypto';
import type { Db } from '../../prisma/client.js';

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
  return crypto.createHash('sha256').update(key).digest('hex');
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
