import type { Db, PrismaClient } from '../../prisma/client.js';
import type { WebhookEndpoint as EndpointRow } from '../../prisma/generated/client.js';
import { WEBHOOK_NOTIFY_CHANNEL } from './events.js';
import { AppError, notFound, ValidationFailed } from '../../lib/errors.js';
import type { WebhookDeliveryAttemptOut, WebhookDeliveryOut, WebhookEndpointCreateIn, WebhookEndpointOut, WebhookEndpointUpdateIn } from './schemas.js';
import { paginationOf } from '../../lib/pagination.js';
import { pauseDeliveries } from './delivery-queue.js';
import { generateSecret, SECRET_PREFIX, secretContext, secretHint } from './signing.js';
import { isRefusedLiteral } from '../../lib/net/target-guard.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { openedForm, sealedForm } from '../../lib/secrets.js';

export interface WebhookPolicy {
  /** Accept endpoints on loopback, private and other non-public addresses (operator setting). */
  allowPrivateTargets: boolean;
}

/** 50 endpoints per organisation: every event fans out to each subscriber in the transaction that records it. */
export const MAX_ENDPOINTS_PER_ORGANIZATION = 50;

// Signing secrets are stored sealed (lib/secret-box.ts, SECRETS_KEY), bound to the organisation: a database dump does
// not let anyone sign as us. The delivery worker opens them to sign (delivery-attempt.ts); creation and rotation show
// the new secret once; reads show its hint. A secret stored in the clear before sealing still signs, and is sealed by
// the API's start-up pass (`sealClearWebhookSecrets`) or the next rotation.

function toApi(row: EndpointRow, secrets: SecretBox): WebhookEndpointOut {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    event_types: row.eventTypes as string[],
    enabled: row.enabled,
    disabled_reason: row.disabledReason,
    // A secret that does not open (sealed under another SECRETS_KEY) shows the prefix alone.
    secret_hint: secretHint(openedForm(secrets, row.secret, secretContext(row.organizationId)) ?? SECRET_PREFIX),
    previous_secret_expires_at:
      row.previousSecretExpiresAt && row.previousSecretExpiresAt.getTime() > Date.now() ? row.previousSecretExpiresAt.toISOString() : null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/**
 * The URL as it will be requested (normalised by the WHATWG parser, so `http://2130706433/` reads as 127.0.0.1), after
 * refusing an IP-literal host outside public unicast space. Host names are checked at delivery, after DNS.
 */
function checkedUrl(url: string, policy: WebhookPolicy): string {
  const target = new URL(url);
  if (isRefusedLiteral(target, policy.allowPrivateTargets)) {
    throw new ValidationFailed([
      {
        loc: ['body', 'url'],
        msg: 'URL points at a private, loopback, link-local or otherwise non-public address',
        type: 'value_error',
      },
    ]);
  }
  return target.href;
}

async function findEndpoint(db: Db, organizationId: number, id: number): Promise<EndpointRow> {
  const row = await db.webhookEndpoint.findFirst({ where: { id, organizationId } });
  if (!row) throw notFound('Webhook endpoint');
  return row;
}

export async function createWebhookEndpoint(
  db: Db,
  organizationId: number,
  input: WebhookEndpointCreateIn,
  policy: WebhookPolicy,
  secrets: SecretBox,
): Promise<WebhookEndpointOut & { secret: string }> {
  const url = checkedUrl(input.url, policy);
  const count = await db.webhookEndpoint.count({ where: { organizationId } });
  if (count >= MAX_ENDPOINTS_PER_ORGANIZATION) {
    throw new AppError('limit_reached', `An organisation can have at most ${MAX_ENDPOINTS_PER_ORGANIZATION} webhook endpoints`);
  }
  const secret = generateSecret();
  const row = await db.webhookEndpoint.create({
    data: {
      organizationId,
      url,
      description: input.description,
      eventTypes: [...new Set(input.event_types)],
      enabled: input.enabled,
      secret: secrets.seal(secret, secretContext(organizationId)),
    },
  });
  return { ...toApi(row, secrets), secret };
}

export async function listWebhookEndpoints(db: Db, organizationId: number, page: number, perPage: number, secrets: SecretBox) {
  const [rows, total] = await Promise.all([
    db.webhookEndpoint.findMany({
      where: { organizationId },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip: (page - 1) * perPage,
      take: perPage,
    }),
    db.webhookEndpoint.count({ where: { organizationId } }),
  ]);
  return { data: rows.map((row) => toApi(row, secrets)), pagination: paginationOf(page, perPage, total) };
}

export async function getWebhookEndpoint(db: Db, organizationId: number, id: number, secrets: SecretBox): Promise<WebhookEndpointOut> {
  return toApi(await findEndpoint(db, organizationId, id), secrets);
}

export async function updateWebhookEndpoint(
  prisma: PrismaClient,
  organizationId: number,
  id: number,
  patch: WebhookEndpointUpdateIn,
  policy: WebhookPolicy,
  secrets: SecretBox,
): Promise<WebhookEndpointOut> {
  const url = patch.url === undefined ? undefined : checkedUrl(patch.url, policy);
  return prisma.$transaction(async (tx) => {
    const locked = await tx.$queryRaw<{ enabled: boolean }[]>`
      SELECT enabled FROM webhook_endpoints WHERE id = ${id} AND organization_id = ${organizationId} FOR NO KEY UPDATE`;
    const before = locked[0];
    if (!before) throw notFound('Webhook endpoint');
    await tx.webhookEndpoint.update({
      where: { id },
      data: {
        ...(url === undefined ? {} : { url }),
        ...(patch.event_types === undefined ? {} : { eventTypes: [...new Set(patch.event_types)] }),
        ...(patch.description === undefined ? {} : { description: patch.description }),
        // Enabling clears the reason the platform disabled it; disabling by hand has no platform reason.
        ...(patch.enabled === undefined ? {} : { enabled: patch.enabled, disabledReason: null }),
      },
    });
    if (patch.enabled !== undefined && patch.enabled !== before.enabled) await pauseDeliveries(tx, id, !patch.enabled);
    return getWebhookEndpoint(tx, organizationId, id, secrets);
  });
}

export async function deleteWebhookEndpoint(db: Db, organizationId: number, id: number): Promise<void> {
  const result = await db.webhookEndpoint.deleteMany({ where: { id, organizationId } });
  if (result.count === 0) throw notFound('Webhook endpoint');
}

/**
 * Replaces the signing secret. The secret it replaces keeps signing next to the new one for `overlapS` seconds, so
 * receivers can switch without rejecting a delivery; a rotation during an overlap drops the oldest secret. Both are
 * stored sealed, the one replaced too if it was stored in the clear.
 */
export async function rotateWebhookSecret(
  prisma: PrismaClient,
  organizationId: number,
  id: number,
  overlapS: number,
  secrets: SecretBox,
): Promise<WebhookEndpointOut & { secret: string }> {
  return prisma.$transaction(async (tx) => {
    // NO KEY UPDATE: serialises rotations without blocking events that queue deliveries for this endpoint meanwhile.
    const locked = await tx.$queryRaw<{ secret: string }[]>`
      SELECT secret FROM webhook_endpoints WHERE id = ${id} AND organization_id = ${organizationId} FOR NO KEY UPDATE`;
    const current = locked[0];
    if (!current) throw notFound('Webhook endpoint');
    const secret = generateSecret();
    const context = secretContext(organizationId);
    const row = await tx.webhookEndpoint.update({
      where: { id },
      data: {
        secret: secrets.seal(secret, context),
        previousSecret: overlapS > 0 ? sealedForm(secrets, current.secret, context) : null,
        previousSecretExpiresAt: overlapS > 0 ? new Date(Date.now() + overlapS * 1000) : null,
      },
    });
    return { ...toApi(row, secrets), secret };
  });
}

interface AttemptRow {
  id: number;
  delivery_id: number;
  event_id: string;
  event_type: string;
  attempt: number;
  started_at: Date;
  succeeded: boolean;
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  next_retry_at: Date | null;
}

/** The endpoint's delivery attempts, newest first. */
export async function listWebhookDeliveryAttempts(db: Db, organizationId: number, endpointId: number, limit: number): Promise<WebhookDeliveryAttemptOut[]> {
  await findEndpoint(db, organizationId, endpointId);
  const rows = await db.$queryRaw<AttemptRow[]>`
    SELECT a.id, a.delivery_id, d.event_id, e.type AS event_type, a.attempt, a.started_at, a.succeeded,
           a.response_status, a.duration_ms, a.error, a.next_retry_at
    FROM webhook_delivery_attempts a
    JOIN webhook_deliveries d ON d.id = a.delivery_id
    JOIN events e ON e.id = d.event_id
    WHERE a.endpoint_id = ${endpointId}
    ORDER BY a.started_at DESC, a.id DESC
    LIMIT ${limit}`;
  return rows.map((r) => ({
    id: r.id,
    delivery_id: r.delivery_id,
    event_id: r.event_id,
    event_type: r.event_type,
    attempt: r.attempt,
    attempted_at: r.started_at.toISOString(),
    succeeded: r.succeeded,
    response_status: r.response_status,
    duration_ms: r.duration_ms,
    error: r.error,
    next_retry_at: r.next_retry_at?.toISOString() ?? null,
  }));
}

/**
 * Queues a delivery again for an immediate attempt, with a fresh retry schedule, whatever its state: delivered,
 * given up, or waiting for a retry. The receiver gets the same event id (webhook-id) again.
 */
export async function redeliverWebhook(prisma: PrismaClient, organizationId: number, endpointId: number, deliveryId: number): Promise<WebhookDeliveryOut> {
  return prisma.$transaction(async (tx) => {
    const found = await tx.$queryRaw<{ id: number; enabled: boolean; in_flight: boolean }[]>`
      SELECT d.id, w.enabled, coalesce(d.lease_expires_at > now(), false) AS in_flight
      FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
      WHERE d.id = ${deliveryId} AND d.endpoint_id = ${endpointId} AND w.organization_id = ${organizationId}
      FOR UPDATE OF d`;
    const row = found[0];
    if (!row) {
      await findEndpoint(tx, organizationId, endpointId);
      throw notFound('Webhook delivery');
    }
    if (!row.enabled) throw new AppError('endpoint_disabled', 'The webhook endpoint is disabled: enable it before redelivering');
    if (row.in_flight) throw new AppError('delivery_in_progress', 'An attempt of this delivery is in progress');
    const updated = await tx.$queryRaw<{ id: number; event_id: string; event_type: string; status: string; attempts: number; next_attempt_at: Date }[]>`
      UPDATE webhook_deliveries d
      SET status = 'pending', attempts_since_queued = 0, next_attempt_at = now(), updated_at = now()
      FROM events e
      WHERE d.id = ${deliveryId} AND e.id = d.event_id
      RETURNING d.id, d.event_id, e.type AS event_type, d.status, d.attempts, d.next_attempt_at`;
    await tx.$executeRaw`SELECT pg_notify(${WEBHOOK_NOTIFY_CHANNEL}, '')`;
    const u = updated[0]!;
    return {
      id: u.id,
      event_id: u.event_id,
      event_type: u.event_type,
      status: u.status as WebhookDeliveryOut['status'],
      attempts: u.attempts,
      next_attempt_at: u.next_attempt_at.toISOString(),
    };
  });
}

/** Endpoints read and written per batch of the start-up pass. */
const SEAL_BATCH = 100;

/**
 * Seals every signing secret still stored in the clear (written before secrets were sealed), and answers how many
 * endpoints it sealed. Any number of processes may run it at once: a row is written only if its secrets are still what
 * was read, so neither a concurrent pass nor a rotation made meanwhile is overwritten; `updated_at` is left as it was.
 */
export async function sealClearWebhookSecrets(db: Db, secrets: SecretBox): Promise<number> {
  let sealed = 0;
  let after = 0;
  for (;;) {
    // `v1.` starts every sealed value and no `whsec_` secret.
    const rows = await db.$queryRaw<{ id: number; organization_id: number; secret: string; previous_secret: string | null }[]>`
      SELECT id, organization_id, secret, previous_secret FROM webhook_endpoints
      WHERE id > ${after} AND (secret NOT LIKE 'v1.%' OR previous_secret NOT LIKE 'v1.%')
      ORDER BY id
      LIMIT ${SEAL_BATCH}`;
    for (const row of rows) {
      const context = secretContext(row.organization_id);
      const secret = sealedForm(secrets, row.secret, context);
      const previous = row.previous_secret === null ? null : sealedForm(secrets, row.previous_secret, context);
      sealed += await db.$executeRaw`
        UPDATE webhook_endpoints SET secret = ${secret}, previous_secret = ${previous}
        WHERE id = ${row.id} AND secret = ${row.secret} AND previous_secret IS NOT DISTINCT FROM ${row.previous_secret}`;
    }
    if (rows.length < SEAL_BATCH) return sealed;
    after = rows[rows.length - 1]!.id;
  }
}
