import { z } from 'zod';
import { isPhoneRegion } from '../../lib/phone.js';
import { int } from '../../lib/zod/int.js';
import { PRIVACY_MODES } from '../calls/index.js';

const region = z
  .string()
  .trim()
  .toUpperCase()
  .refine(isPhoneRegion, {
    message: 'Input should be an ISO 3166-1 alpha-2 region with a phone numbering plan, e.g. US or GB',
    params: { type: 'region_error' },
  });

export const OrganizationSettings = z
  .object({
    organization_id: z.int(),
    name: z.string(),
    default_phone_region: z.string().describe('ISO 3166-1 alpha-2; phone numbers written without a country code are read in this region'),
    max_concurrent_calls: z.int().describe('Calls under way at once, inbound, outbound and web together; POST /telephony/calls/initiate answers 429 beyond it'),
    active_calls: z.int().describe('Calls under way now: queued, dialling, ringing or in progress'),
    privacy_mode: z
      .enum(PRIVACY_MODES)
      .describe(
        "full: what calls say is kept (until retention); redacted: kept with personal details (names, phone numbers, emails, card numbers, addresses, long identifiers) masked, and beeped in recordings; metadata_only: a call's metadata and timings only, never its words, recordings or analysis. An assistant's own privacy_mode can make its calls stricter, never less strict",
      ),
    recording_retention_days: z.int().nullable().describe("Days a call's recordings are kept after it ends; null keeps them"),
    transcript_retention_days: z.int().nullable().describe("Days a call's transcript (its words, summary and outcomes) is kept after it ends; null keeps it"),
  })
  .meta({ id: 'OrganizationSettings' });

export const OrganizationSettingsUpdate = z
  .strictObject({
    default_phone_region: region.optional(),
    max_concurrent_calls: int().min(1).max(10_000).optional().describe('Default 10'),
    privacy_mode: z.enum(PRIVACY_MODES).optional().describe('Applies to calls that start from now on; default full'),
    recording_retention_days: int()
      .min(1)
      .max(3650)
      .nullable()
      .optional()
      .describe('Recordings of calls that ended longer ago are deleted by a background job, each deletion audited; null keeps them'),
    transcript_retention_days: int()
      .min(1)
      .max(3650)
      .nullable()
      .optional()
      .describe('Transcripts of calls that ended longer ago lose their words (timings stay, for the charts); null keeps them'),
  })
  .meta({ id: 'OrganizationSettingsUpdate' });
