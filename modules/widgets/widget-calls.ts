import type { PrismaClient } from '../../prisma/client.js';
import { AppError } from '../../lib/errors.js';
import { ACTIVE_STATUSES, admitCall, openWebCall } from '../calls/index.js';
import { requireActiveAssistant } from '../assistants/index.js';
import { PUBLIC_KEY } from './schemas.js';

// What a page's widget does with its public key: read the key's settings and start a browser call to its assistant.
// The key is read from the database on every request, so a revocation or a change of origins holds at once in every
// API process. The key's concurrency cap counts its calls not yet ended, under a row lock on the key taken in the
// transaction that creates the call, so two pages racing for the last slot cannot both take it; the organisation's
// own cap (modules/calls/concurrency.ts) holds for widget calls as for any other.

export interface LiveWidgetKey {
  id: number;
  organizationId: number;
  assistantId: number;
  allowedOrigins: string[];
  rateLimitPerMinute: number;
  maxConcurrentCalls: number;
  buttonLabel: string | null;
  buttonColor: string | null;
  greeting: string | null;
}

/** The key a page names, if it exists and is not revoked; null for anything else, which the caller answers as one. */
export async function findLiveWidgetKey(prisma: PrismaClient, publicKey: string): Promise<LiveWidgetKey | null> {
  if (!PUBLIC_KEY.test(publicKey)) return null;
  const row = await prisma.widgetKey.findUnique({ where: { publicKey } });
  if (!row || row.revokedAt) return null;
  return row;
}

/** The origins that may frame the page of a widget's call, while its key is live; null for any other call. */
export async function framingOriginsOfCall(prisma: PrismaClient, callSid: string): Promise<string[] | null> {
  const call = await prisma.call.findUnique({ where: { callSid }, select: { widgetKey: { select: { allowedOrigins: true, revokedAt: true } } } });
  const key = call?.widgetKey;
  return key && !key.revokedAt ? key.allowedOrigins : null;
}

/** Calls of the key not yet ended (queued, ringing or in progress). */
export async function widgetCallsUnderWay(prisma: PrismaClient, widgetKeyId: number): Promise<number> {
  return prisma.call.count({ where: { widgetKeyId, status: { in: [...ACTIVE_STATUSES] } } });
}

/**
 * Creates the call a widget's button asked for, on the built-in browser transport, or throws: the assistant inactive,
 * the key revoked in the meantime, its cap or the organisation's reached. `unavailable` is thrown once the request is
 * known good, when no worker in this process can run the call.
 */
export async function openWidgetCall(prisma: PrismaClient, key: LiveWidgetKey, unavailable?: AppError): Promise<{ callSid: string }> {
  await requireActiveAssistant(prisma, key.organizationId, key.assistantId);
  if (unavailable) throw unavailable;
  return prisma.$transaction(async (tx) => {
    const locked = await tx.$queryRaw<{ revoked_at: Date | null; max_concurrent_calls: number }[]>`
      SELECT revoked_at, max_concurrent_calls FROM widget_keys WHERE id = ${key.id} FOR UPDATE`;
    const row = locked[0];
    if (!row || row.revoked_at) throw new AppError('widget_key_invalid', 'This widget key is unknown or revoked');
    const active = await tx.call.count({ where: { widgetKeyId: key.id, status: { in: [...ACTIVE_STATUSES] } } });
    if (active >= row.max_concurrent_calls) {
      throw new AppError('widget_busy', `This widget has ${active} calls under way and may have ${row.max_concurrent_calls} at once: try again when one ends`, {
        limit: row.max_concurrent_calls,
        active,
      });
    }
    await admitCall(tx, key.organizationId);
    const call = await openWebCall(tx, {
      organizationId: key.organizationId,
      assistantId: key.assistantId,
      transport: 'browser',
      welcomeMessage: null,
      variables: {},
      widgetKeyId: key.id,
    });
    return { callSid: call.callSid };
  });
}
