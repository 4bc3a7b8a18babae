import { z } from 'zod';
import { int } from '../../lib/zod/int.js';
import { idParam, MAX_ID } from '../../lib/zod/query.js';
import { parseOrigin } from './origins.js';

// Website widget keys (docs/widget.md): the request to create or change one, the answer, and the public call's answer.

export const MAX_ORIGINS = 20;
export const MAX_ORIGIN_LENGTH = 200;
export const MAX_RATE_LIMIT_PER_MINUTE = 1_000;
export const MAX_CONCURRENT_WIDGET_CALLS = 100;
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 10;
export const DEFAULT_MAX_CONCURRENT_CALLS = 3;
/** The public key: `wk_` and 32 characters of base64url (24 random bytes). */
export const PUBLIC_KEY = /^wk_[A-Za-z0-9_-]{32}$/;

const origin = z
  .string()
  .max(MAX_ORIGIN_LENGTH)
  .transform((text, ctx) => {
    const checked = parseOrigin(text);
    if ('origin' in checked) return checked.origin;
    ctx.addIssue({ code: 'custom', message: checked.error, params: { type: 'value_error' } });
    return z.NEVER;
  })
  .describe('An exact origin: scheme, host and port, no path, e.g. `https://shop.example.com`; http only for 127.0.0.1 or localhost');

const origins = z
  .array(origin)
  .min(1)
  .max(MAX_ORIGINS)
  .transform((list) => [...new Set(list)])
  .describe('The origins whose pages may start calls with this key; the call page may be framed by these alone');

const name = z.string().trim().min(1).max(100).describe('What the team calls the widget, e.g. the site it is on');
const assistantId = int().min(1).max(MAX_ID).describe("The organisation's assistant the widget's calls talk to");
const rateLimit = int().min(1).max(MAX_RATE_LIMIT_PER_MINUTE).describe('Calls the key may start per minute, from all pages together');
const maxConcurrent = int().min(1).max(MAX_CONCURRENT_WIDGET_CALLS).describe('Calls of this key under way at once (queued or in progress)');
const buttonLabel = z.string().trim().min(1).max(40).nullable().describe('The button\'s text; null: "Talk to us"');
const buttonColor = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, 'Must be a colour as #rrggbb')
  .nullable()
  .describe("The button's colour as #rrggbb; null: the default blue");
const greeting = z.string().trim().min(1).max(200).nullable().describe('A line shown in the call panel above the controls; null: none');

export const WidgetKeyCreate = z
  .strictObject({
    name,
    assistant_id: assistantId,
    allowed_origins: origins,
    rate_limit_per_minute: rateLimit.default(DEFAULT_RATE_LIMIT_PER_MINUTE),
    max_concurrent_calls: maxConcurrent.default(DEFAULT_MAX_CONCURRENT_CALLS),
    button_label: buttonLabel.default(null),
    button_color: buttonColor.default(null),
    greeting: greeting.default(null),
  })
  .meta({ id: 'WidgetKeyCreate' });
export type WidgetKeyCreateIn = z.output<typeof WidgetKeyCreate>;

export const WidgetKeyUpdate = z
  .strictObject({
    name: name.optional(),
    assistant_id: assistantId.optional(),
    allowed_origins: origins.optional(),
    rate_limit_per_minute: rateLimit.optional(),
    max_concurrent_calls: maxConcurrent.optional(),
    button_label: buttonLabel.optional(),
    button_color: buttonColor.optional(),
    greeting: greeting.optional(),
  })
  .meta({ id: 'WidgetKeyUpdate' });
export type WidgetKeyUpdateIn = z.output<typeof WidgetKeyUpdate>;

export const WidgetKey = z
  .object({
    id: z.int(),
    name: z.string(),
    public_key: z.string().describe('Carried by the page in its script tag (`data-key`): public, not a secret'),
    assistant_id: z.int(),
    allowed_origins: z.array(z.string()),
    rate_limit_per_minute: z.int(),
    max_concurrent_calls: z.int(),
    button_label: z.string().nullable(),
    button_color: z.string().nullable(),
    greeting: z.string().nullable(),
    revoked_at: z.iso.datetime().nullable().describe('Set once revoked: every page carrying the key stops starting calls'),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'WidgetKey' });
export type WidgetKeyOut = z.output<typeof WidgetKey>;

export const WidgetKeyParams = z.object({ widget_key_id: idParam });

/** The public routes name the key by its public string: anything else is no key at all. */
export const WidgetPublicParams = z.object({
  widget_key: z.string().min(1).max(64).describe('The public key, `wk_…`, as the page carries it'),
});

export const WidgetSettings = z
  .object({
    button_label: z.string(),
    button_color: z.string(),
    greeting: z.string().nullable(),
  })
  .meta({ id: 'WidgetSettings' });

export const WidgetCall = z
  .object({
    call_sid: z.string(),
    page_url: z.string().describe('The call page to frame (with `allow="microphone"`); carries the call\'s token'),
    expires_at: z.iso.datetime().describe('The page must connect before this'),
  })
  .meta({ id: 'WidgetCall' });

/** The widget sends `{}`: what the call is comes from the key alone, never from the page. */
export const WidgetCallCreate = z.strictObject({}).meta({ id: 'WidgetCallCreate' });
