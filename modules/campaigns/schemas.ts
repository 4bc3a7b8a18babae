import { z } from 'zod';
import { int } from '../../lib/zod/int.js';
import { idParam, MAX_ID } from '../../lib/zod/query.js';
import { canonicalTimeZone, CONTACT_SOURCES } from '../contacts/index.js';
import { e164 } from '../../lib/zod/e164.js';

// A campaign as a client writes and reads it. Every setting has a default a careful operator would pick, so
// `{name, assistant_id, from_numbers}` is a working campaign; docs/campaigns.md gives each default its reason.

export const CAMPAIGN_STATES = ['draft', 'scheduled', 'running', 'paused', 'completed', 'cancelled'] as const;
export type CampaignState = (typeof CAMPAIGN_STATES)[number];
/** Where a contact of a campaign stands. `dialling` and `in_call` are one stored state, told apart by the call. */
export const CONTACT_STATES = ['pending', 'scheduled', 'dialling', 'done', 'exhausted', 'skipped'] as const;
export type CampaignContactState = (typeof CONTACT_STATES)[number];
/** How an attempt ended, as the campaign counts it. */
export const OUTCOMES = ['answered', 'voicemail', 'no_answer', 'busy', 'failed'] as const;
export type Outcome = (typeof OUTCOMES)[number];
export const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Day = (typeof DAYS)[number];

const MAX_NAME = 200;
/** A campaign dials from up to 50 numbers: local presence across a country's area codes. */
const MAX_FROM_NUMBERS = 50;
const MAX_WINDOWS = 50;
const MAX_VARIABLES = 50;
/** A week: a retry later than that is a new campaign. */
const MAX_DELAY_MINUTES = 7 * 24 * 60;

const zone = z
  .string()
  .transform((s, ctx) => {
    const known = canonicalTimeZone(s);
    if (known === null) ctx.addIssue({ code: 'custom', message: 'Value is not an IANA time zone (e.g. America/New_York)', params: { type: 'value_error' } });
    return known ?? s;
  })
  .meta({ type: 'string', examples: ['America/New_York'] });

const clock = z.string().regex(/^(([01]\d|2[0-3]):[0-5]\d|24:00)$/, 'Value must be a time of day, HH:MM (00:00 to 24:00)');
const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));

export const CallingWindow = z
  .strictObject({
    days: z.array(z.enum(DAYS)).min(1).max(7).describe('Weekdays the window applies to'),
    start: clock.describe('Local time the window opens, HH:MM'),
    end: clock.describe('Local time the window closes, HH:MM (24:00 for midnight); after `start`'),
  })
  .refine((w) => minutesOf(w.end) > minutesOf(w.start), {
    message: '`end` must be after `start` within the day',
    path: ['end'],
    params: { type: 'value_error' },
  })
  .meta({ id: 'CallingWindow' });

const WEEKDAYS: Day[] = ['mon', 'tue', 'wed', 'thu', 'fri'];

export const CampaignSchedule = z
  .strictObject({
    timezone: zone.default('UTC').describe("The campaign's zone: for contacts whose own zone is unknown, or for all when `use_contact_timezone` is false"),
    use_contact_timezone: z
      .boolean()
      .default(true)
      .describe(
        "Windows are read in each contact's own zone: its `timezone`, else the zone of its phone number (when the number's area has one), else the campaign's",
      ),
    windows: z
      .array(CallingWindow)
      .min(1)
      .max(MAX_WINDOWS)
      .default([{ days: WEEKDAYS, start: '09:00', end: '20:00' }])
      .describe('When calls may be placed; default weekdays 09:00 to 20:00'),
    start_at: z.iso
      .datetime({ offset: true })
      .nullable()
      .default(null)
      .describe('No call before this instant; a campaign started earlier is `scheduled` until then'),
    end_at: z.iso
      .datetime({ offset: true })
      .nullable()
      .default(null)
      .describe('No call after this instant: the campaign completes, its contacts not reached are `skipped`'),
  })
  .refine((s) => !s.start_at || !s.end_at || Date.parse(s.end_at) > Date.parse(s.start_at), {
    message: '`end_at` must be after `start_at`',
    path: ['end_at'],
    params: { type: 'value_error' },
  })
  .meta({ id: 'CampaignSchedule' });

export const CampaignPacing = z
  .strictObject({
    max_concurrent_calls: int().min(1).max(1000).default(5).describe('Calls of this campaign under way at once'),
    calls_per_minute: int().min(1).max(6000).default(30).describe('New calls started per minute, at most'),
    org_share: z
      .number()
      .min(0.05)
      .max(1)
      .default(0.8)
      .describe("Share of the organisation's `max_concurrent_calls` all its campaigns may use together, so inbound calls always find room"),
  })
  .meta({ id: 'CampaignPacing' });

const retryOf = (attempts: number, delay: number) =>
  z
    .strictObject({
      attempts: int().min(0).max(20).default(attempts).describe('Further calls after an attempt that ends this way'),
      delay_minutes: int().min(1).max(MAX_DELAY_MINUTES).default(delay).describe('Wait before the next attempt; it also waits for the next window'),
    })
    .prefault({});

export const CampaignRetry = z
  .strictObject({
    busy: retryOf(2, 15),
    no_answer: retryOf(2, 60),
    voicemail: retryOf(1, 240),
    failed: retryOf(1, 30),
  })
  .describe('Per outcome of an attempt: how many more calls, and how long after. An answered call is never retried')
  .meta({ id: 'CampaignRetry' });

export const CampaignVoicemail = z
  .strictObject({
    detect: z.boolean().default(true).describe('Tell a person from an answering machine in the first seconds of an answered call'),
    action: z.enum(['hang_up', 'leave_message']).default('hang_up').describe('On a machine: hang up, or wait for the greeting to end and speak `message`'),
    message: z
      .string()
      .trim()
      .min(1)
      .max(2000)
      .nullable()
      .default(null)
      .describe('Spoken after the greeting when `action` is leave_message; `{{var.*}}` allowed'),
  })
  .refine((v) => v.action !== 'leave_message' || v.message !== null, {
    message: 'A message is required to leave one',
    path: ['message'],
    params: { type: 'missing' },
  })
  .meta({ id: 'CampaignVoicemail' });

export const CampaignCircuitBreaker = z
  .strictObject({
    enabled: z.boolean().default(true),
    failure_ratio: z.number().gt(0).max(1).default(0.5).describe('Pause when at least this share of the recent attempts failed'),
    min_attempts: int().min(3).max(1000).default(10).describe('How many recent attempts are looked at, and the fewest before it can trip'),
  })
  .describe(
    'Pauses the campaign with reason `circuit_breaker` when most recent calls fail (a wrong trunk, a revoked key): a failure is an attempt that ended `failed`, not busy or unanswered',
  )
  .meta({ id: 'CampaignCircuitBreaker' });

const variables = z
  .record(
    z
      .string()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'Variable names are letters, digits and _'),
    z.string().max(4000),
  )
  .refine((v) => Object.keys(v).length <= MAX_VARIABLES, { message: `At most ${MAX_VARIABLES} variables`, params: { type: 'too_big' } });

export const CampaignWrite = z
  .strictObject({
    name: z.string().trim().min(1).max(MAX_NAME),
    assistant_id: int().min(1).max(MAX_ID),
    from_numbers: z
      .array(e164)
      .min(1)
      .max(MAX_FROM_NUMBERS)
      .refine((n) => new Set(n).size === n.length, { message: 'A number is listed twice', params: { type: 'value_error' } })
      .describe("The organisation's managed numbers to call from (SIP-trunk or carrier connections)"),
    number_rotation: z
      .enum(['round_robin', 'sticky'])
      .default('round_robin')
      .describe('round_robin: each call takes the next number; sticky: a contact is always called from the same number'),
    schedule: CampaignSchedule.prefault({}),
    pacing: CampaignPacing.prefault({}),
    retry: CampaignRetry.prefault({}),
    voicemail: CampaignVoicemail.prefault({}),
    circuit_breaker: CampaignCircuitBreaker.prefault({}),
    variables: variables.default({}).describe("`{{var.*}}` of every call; a contact's imported values and its own fields (`{{contact.*}}`) take precedence"),
  })
  .meta({ id: 'CampaignWrite' });
export type CampaignWriteIn = z.output<typeof CampaignWrite>;

export const CampaignParams = z.object({ campaign_id: idParam });

export const CampaignProgress = z
  .object({
    contacts: z
      .object({
        total: z.int(),
        pending: z.int(),
        scheduled: z.int(),
        dialling: z.int(),
        in_call: z.int(),
        done: z.int(),
        exhausted: z.int(),
        skipped: z.int(),
      })
      .describe(
        'By state: pending (never called), scheduled (a retry or the next window is due), dialling, in_call, done, exhausted (retries used up), skipped',
      ),
    outcomes: z.object({ answered: z.int(), voicemail: z.int(), no_answer: z.int(), busy: z.int(), failed: z.int() }).describe('Of every attempt made'),
    attempts: z.int(),
    calls_in_flight: z.int(),
    next_window_opens_at: z.iso.datetime().nullable().describe('When the earliest contact waiting for a window can be called; null when none waits'),
    estimated_completion_at: z.iso.datetime().nullable().describe('At the pace of the last hour; null before there is one, or when nothing is left'),
    circuit_breaker: z.object({ state: z.enum(['closed', 'open']), recent_attempts: z.int(), recent_failures: z.int() }),
  })
  .meta({ id: 'CampaignProgress' });
export type CampaignProgressOut = z.output<typeof CampaignProgress>;

export const Campaign = z
  .object({
    id: z.int(),
    name: z.string(),
    assistant_id: z.int().nullable(),
    state: z.enum(CAMPAIGN_STATES),
    state_reason: z
      .string()
      .nullable()
      .describe('Why it is paused or ended when not by a person: circuit_breaker, assistant_deleted, no_calling_number, end_at'),
    from_numbers: z.array(z.string()),
    number_rotation: z.enum(['round_robin', 'sticky']),
    schedule: CampaignSchedule,
    pacing: CampaignPacing,
    retry: CampaignRetry,
    voicemail: CampaignVoicemail,
    circuit_breaker: CampaignCircuitBreaker,
    variables: z.record(z.string(), z.string()),
    progress: CampaignProgress,
    started_at: z.iso.datetime().nullable(),
    completed_at: z.iso.datetime().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'Campaign' });
export type CampaignOut = z.output<typeof Campaign>;

export const CampaignContactsAdd = z
  .strictObject({
    contact_ids: z.array(int().min(1).max(MAX_ID)).max(10_000).optional().describe('Contacts to add, by id'),
    filter: z
      .strictObject({
        source: z.array(z.enum(CONTACT_SOURCES)).optional(),
        campaign_id: z.array(int().min(1).max(MAX_ID)).optional(),
        has_email: z.boolean().optional(),
        has_phone: z.boolean().optional(),
        last_seen_after: z.iso.datetime({ offset: true }).optional(),
        last_seen_before: z.iso.datetime({ offset: true }).optional(),
        q: z.string().max(200).optional(),
        custom: z
          .record(z.string().max(100), z.array(z.string().max(500)).max(50))
          .optional()
          .describe('Custom fields, as `cf.<key>` filters the contacts list'),
      })
      .optional()
      .describe('Every contact the same filters of GET /api/contacts find (at most 100,000)'),
  })
  .refine((b) => b.contact_ids !== undefined || b.filter !== undefined, { message: 'Give contact_ids or filter', params: { type: 'missing' } })
  .meta({ id: 'CampaignContactsAdd' });

export const CampaignContactsAdded = z
  .object({
    added: z.int().describe('Contacts new to the campaign'),
    already_in: z.int().describe('Contacts the campaign had already: a contact is in a campaign once'),
    without_phone: z.int().describe('Contacts left out: nothing to dial'),
    not_found: z.array(z.int()).describe('Ids of `contact_ids` the organisation has no contact with'),
  })
  .meta({ id: 'CampaignContactsAdded' });

export const CampaignContact = z
  .object({
    contact_id: z.int(),
    phone_number: z.string().nullable(),
    state: z.enum(['pending', 'scheduled', 'dialling', 'in_call', 'done', 'exhausted', 'skipped']),
    attempts: z.int(),
    next_attempt_at: z.iso.datetime().nullable(),
    last_outcome: z.enum(OUTCOMES).nullable(),
    last_call_sid: z.string().nullable(),
    variables: z.record(z.string(), z.string()),
  })
  .meta({ id: 'CampaignContact' });
