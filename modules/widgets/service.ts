import crypto from 'node:crypto';
import type { Db, PrismaClient } from '../../prisma/client.js';
import { AppError, notFound, ValidationFailed } from '../../lib/errors.js';
import { paginationOf } from '../../lib/pagination.js';
import type { WidgetKeyCreateIn, WidgetKeyOut, WidgetKeyUpdateIn } from './schemas.js';

// An organisation's widget keys: created for one of its assistants, listed, read, changed and revoked. A revoked key
// stays listed (the calls it started still name it) and can no longer be changed or start a call.

type WidgetKeyRow = {
  id: number;
  name: string;
  publicKey: string;
  assistantId: number;
  allowedOrigins: string[];
  rateLimitPerMinute: number;
  maxConcurrentCalls: number;
  buttonLabel: string | null;
  buttonColor: string | null;
  greeting: string | null;
  revokedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
};

export function widgetKeyToApi(row: WidgetKeyRow): WidgetKeyOut {
  return {
    id: row.id,
    name: row.name,
    public_key: row.publicKey,
    assistant_id: row.assistantId,
    allowed_origins: row.allowedOrigins,
    rate_limit_per_minute: row.rateLimitPerMinute,
    max_concurrent_calls: row.maxConcurrentCalls,
    button_label: row.buttonLabel,
    button_color: row.buttonColor,
    greeting: row.greeting,
    revoked_at: row.revokedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** 24 random bytes: a key nobody can guess, though it is no secret once a page carries it. */
function newPublicKey(): string {
  return `wk_${crypto.randomBytes(24).toString('base64url')}`;
}

/** The assistant must be the organisation's own: another organisation's id reads as no such assistant. */
async function requireOwnAssistant(db: Db, organizationId: number, assistantId: number): Promise<void> {
  const found = await db.assistant.findFirst({ where: { id: assistantId, organizationId }, select: { id: true } });
  if (!found) throw new ValidationFailed([{ loc: ['body', 'assistant_id'], msg: 'No such assistant', type: 'not_found' }]);
}

export async function createWidgetKey(db: Db, organizationId: number, input: WidgetKeyCreateIn): Promise<WidgetKeyOut> {
  await requireOwnAssistant(db, organizationId, input.assistant_id);
  const row = await db.widgetKey.create({
    data: {
      organizationId,
      assistantId: input.assistant_id,
      publicKey: newPublicKey(),
      name: input.name,
      allowedOrigins: input.allowed_origins,
      rateLimitPerMinute: input.rate_limit_per_minute,
      maxConcurrentCalls: input.max_concurrent_calls,
      buttonLabel: input.button_label,
      buttonColor: input.button_color,
      greeting: input.greeting,
    },
  });
  return widgetKeyToApi(row);
}

async function findRow(db: Db, organizationId: number, id: number) {
  const row = await db.widgetKey.findFirst({ where: { id, organizationId } });
  if (!row) throw notFound('Widget key');
  return row;
}

export async function getWidgetKey(db: Db, organizationId: number, id: number): Promise<WidgetKeyOut> {
  return widgetKeyToApi(await findRow(db, organizationId, id));
}

export async function listWidgetKeys(db: Db, organizationId: number, page: number, perPage: number) {
  const [rows, total] = await Promise.all([
    db.widgetKey.findMany({ where: { organizationId }, orderBy: { id: 'desc' }, skip: (page - 1) * perPage, take: perPage }),
    db.widgetKey.count({ where: { organizationId } }),
  ]);
  return { data: rows.map(widgetKeyToApi), pagination: paginationOf(page, perPage, total) };
}

export async function updateWidgetKey(db: PrismaClient, organizationId: number, id: number, patch: WidgetKeyUpdateIn): Promise<WidgetKeyOut> {
  if (patch.assistant_id !== undefined) await requireOwnAssistant(db, organizationId, patch.assistant_id);
  const data = {
    name: patch.name,
    assistantId: patch.assistant_id,
    allowedOrigins: patch.allowed_origins,
    rateLimitPerMinute: patch.rate_limit_per_minute,
    maxConcurrentCalls: patch.max_concurrent_calls,
    buttonLabel: patch.button_label,
    buttonColor: patch.button_color,
    greeting: patch.greeting,
  };
  // The organisation and the key's being live are in the filter: another organisation's id, or a revoked key, changes nothing.
  const { count } = await db.widgetKey.updateMany({ where: { id, organizationId, revokedAt: null }, data });
  if (count === 0) {
    const row = await findRow(db, organizationId, id);
    if (row.revokedAt) throw new AppError('invalid_state', 'This widget key is revoked: create a new one instead');
  }
  return getWidgetKey(db, organizationId, id);
}

/** Revokes a live key: every page carrying it stops starting calls at once (the public routes read it each time). */
export async function revokeWidgetKey(db: Db, organizationId: number, id: number): Promise<WidgetKeyOut> {
  const { count } = await db.widgetKey.updateMany({ where: { id, organizationId, revokedAt: null }, data: { revokedAt: new Date() } });
  if (count === 0) {
    const row = await findRow(db, organizationId, id);
    if (row.revokedAt) throw new AppError('invalid_state', 'This widget key is revoked already');
  }
  return getWidgetKey(db, organizationId, id);
}
