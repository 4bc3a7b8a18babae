import { z } from 'zod';
import { EVENT_TYPES } from './events.js';
import { int } from '../../lib/zod/int.js';
import { idParam, textInt } from '../../lib/zod/query.js';

// Webhook endpoints and their delivery log. Times are ISO 8601; durations carry their unit in the field name.

/** 2048 characters: the longest URL that every common HTTP stack accepts. */
const MAX_URL_LENGTH = 2048;
const MAX_DESCRIPTION_LENGTH = 500;
/**
 * How long the old secret keeps signing after a rotation: by default a day (time to roll the new secret out to every
 * receiver instance), at most a week (a leaked secret must not stay valid for long).
 */
export const DEFAULT_ROTATION_OVERLAP_S = 86_400;
const MAX_ROTATION_OVERLAP_S = 7 * 86_400;

export const WebhookEventType = z.enum([...EVENT_TYPES, '*']).describe('An event kind, or `*` for every kind, including kinds added later');

const url = z
  .url({ protocol: /^https?$/ })
  .max(MAX_URL_LENGTH)
  .describe('Where events are POSTed. http or https. Private, loopback and link-local addresses are refused unless the operator allows them');

// 20 leaves room for every kind planned (call and campaign events) while keeping the list a list, not a dump.
const eventTypes = z.array(WebhookEventType).min(1).max(20).describe('Event kinds sent to this endpoint');
const description = z.string().max(MAX_DESCRIPTION_LENGTH).nullable();

export const WebhookEndpointCreate = z
  .strictObject({
    url,
    event_types: eventTypes,
    enabled: z.boolean().default(true),
    description: description.default(null),
  })
  .meta({ id: 'WebhookEndpointCreate' });
export type WebhookEndpointCreateIn = z.output<typeof WebhookEndpointCreate>;

export const WebhookEndpointUpdate = z
  .strictObject({
    url: url.optional(),
    event_types: eventTypes.optional(),
    enabled: z.boolean().optional().describe('Setting true re-enables an endpoint the platform disabled; queued deliveries resume'),
    description: description.optional(),
  })
  .meta({ id: 'WebhookEndpointUpdate', description: 'Partial update: omitted fields keep their value.' });
export type WebhookEndpointUpdateIn = z.output<typeof WebhookEndpointUpdate>;

export const RotateSecretBody = z
  .strictObject({
    overlap_seconds: int()
      .min(0)
      .max(MAX_ROTATION_OVERLAP_S)
      .default(DEFAULT_ROTATION_OVERLAP_S)
      .describe('How long the previous secret keeps signing alongside the new one. Default 86400 (24 h), at most 604800 (7 days)'),
  })
  .meta({ id: 'RotateWebhookSecret' });

export const WebhookEndpoint = z
  .object({
    id: z.int(),
    url: z.string(),
    description: z.string().nullable(),
    event_types: z.array(z.string()),
    enabled: z.boolean(),
    disabled_reason: z.string().nullable().describe('Why the platform disabled the endpoint, e.g. the receiver answered 410'),
    secret_hint: z.string().describe('The first characters of the signing secret; the whole secret is shown only at creation and rotation'),
    previous_secret_expires_at: z.iso.datetime().nullable().describe('Until when the secret before the last rotation still signs'),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'WebhookEndpoint' });
export type WebhookEndpointOut = z.output<typeof WebhookEndpoint>;

export const WebhookEndpointWithSecret = WebhookEndpoint.extend({
  secret: z.string().describe('The signing secret, `whsec_` + base64 of 32 random bytes. Shown only in this response'),
}).meta({ id: 'WebhookEndpointWithSecret' });

export const WebhookDeliveryAttempt = z
  .object({
    id: z.int(),
    delivery_id: z.int().describe('The delivery (one event to this endpoint) the attempt belongs to; redeliver takes it'),
    event_id: z.string(),
    event_type: z.string(),
    attempt: z.int().describe('1 for the first attempt of this delivery, counting up through retries and redeliveries'),
    attempted_at: z.iso.datetime(),
    succeeded: z.boolean(),
    response_status: z.int().nullable().describe('HTTP status the receiver answered; null when no response arrived'),
    duration_ms: z.int().nullable().describe('Milliseconds from sending the request to the end of the response'),
    error: z.string().nullable(),
    next_retry_at: z.iso.datetime().nullable().describe('When the delivery is attempted again after this failed attempt; null if it is not'),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });
export type WebhookDeliveryAttemptOut = z.output<typeof WebhookDeliveryAttempt>;

export const WebhookDelivery = z
  .object({
    id: z.int(),
    event_id: z.string(),
    event_type: z.string(),
    status: z.enum(['pending', 'paused', 'succeeded', 'failed']).describe('paused: waiting for its disabled endpoint to be enabled again'),
    attempts: z.int(),
    next_attempt_at: z.iso.datetime().nullable(),
  })
  .meta({ id: 'WebhookDelivery' });
export type WebhookDeliveryOut = z.output<typeof WebhookDelivery>;

export const DEFAULT_DELIVERY_LIMIT = 50;
export const MAX_DELIVERY_LIMIT = 200;

export const DeliveriesQuery = z.object({
  limit: textInt(1, MAX_DELIVERY_LIMIT).default(DEFAULT_DELIVERY_LIMIT).describe('How many attempts, newest first. 1 to 200, default 50'),
});

export const EndpointParams = z.object({ endpoint_id: idParam });
export const DeliveryParams = z.object({ endpoint_id: idParam, delivery_id: idParam });
