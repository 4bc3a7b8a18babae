import { z } from 'zod';
import { int } from '../../lib/zod/int.js';
import { UNSTORABLE_TEXT_TYPE, unstorableTextMessage } from '../../lib/storable-text.js';
import { normalizeEmail } from './email.js';
import { canonicalTimeZone } from './timezone.js';
import { idParam, MAX_ID, textInt } from '../../lib/zod/query.js';
import { repeated, textBool, textInstant } from '../../lib/zod/query.js';

// Contact fields as the spec lists them. Phone numbers and custom fields need the organisation (its default region,
// its properties), so they are normalised and coerced in the service; everything else is settled here.

/**
 * Text Postgres can store. Requests are checked as a whole before validation (lib/storable-text.ts); the schema
 * says it too, so that rows validated outside a request (an import's rows) are held to the same rule, with the same
 * message and type.
 */
export function storableText(max: number) {
  return z
    .string()
    .max(max)
    .superRefine((s, ctx) => {
      const message = unstorableTextMessage(s);
      if (message) ctx.addIssue({ code: 'custom', message, params: { type: UNSTORABLE_TEXT_TYPE } });
    });
}

/** Names are trimmed; an empty name is no name. 200 characters holds any real name with room to spare. */
const name = storableText(200)
  .transform((s) => s.trim() || null)
  // Documented as the text it accepts rather than the value it becomes.
  .meta({ type: 'string', maxLength: 200 })
  .nullable()
  .optional();

const email = z
  .string()
  // RFC 5321 caps a forward path at 256 octets including the angle brackets, so 254 for the address itself.
  .max(254)
  .transform(normalizeEmail)
  .pipe(z.email({ error: 'value is not a valid email address' }))
  .nullable()
  .optional()
  .describe('Trimmed and lower-cased (local part included) before storage. Unique per organisation.');

const timezone = z
  .string()
  .max(64)
  .transform((s, ctx) => {
    const zone = canonicalTimeZone(s);
    if (zone === null) {
      ctx.addIssue({ code: 'custom', message: 'Input should be an IANA time-zone name such as Europe/London', params: { type: 'timezone_error' } });
      return z.NEVER;
    }
    return zone;
  })
  .meta({ type: 'string', maxLength: 64 })
  .nullable()
  .optional()
  .describe('IANA time-zone name, e.g. `America/New_York`.');

export const contactFields = {
  external_id: storableText(255)
    .transform((s) => s.trim() || null)
    .meta({ type: 'string', maxLength: 255 })
    .nullable()
    .optional()
    .describe("The caller system's own id. Unique per organisation."),
  first_name: name,
  last_name: name,
  phone_number: z
    .string()
    .max(64)
    .nullable()
    .optional()
    .describe(
      "Any common notation: E.164, national format (read in the organisation's `default_phone_region`), `00` prefix, " +
        'with an extension (`ext. 12`, `x12`). Stored as E.164; the extension goes to `phone_extension`. Unique per organisation.',
    ),
  email,
  timezone,
  custom_fields: z
    .record(z.string(), z.unknown())
    .nullable()
    .optional()
    .describe('Keys are custom property keys; each value is coerced to its property type. On update, null removes a value.'),
};

/** A contact must be findable again: by phone, by email or by the caller system's id. */
export const IDENTIFIERS = ['phone_number', 'email', 'external_id'] as const;
export const NEEDS_IDENTIFIER = 'At least one of phone_number, email or external_id is required';

export const ContactCreate = z
  .strictObject(contactFields)
  .superRefine((value, ctx) => {
    if (!IDENTIFIERS.some((k) => value[k] !== undefined && value[k] !== null)) {
      ctx.addIssue({ code: 'custom', message: NEEDS_IDENTIFIER, params: { type: 'missing_identifier' }, path: [] });
    }
  })
  .meta({ id: 'ContactCreate', description: 'At least one of `phone_number`, `email` or `external_id` is required.' });
export type ContactCreateIn = z.output<typeof ContactCreate>;

export const ContactUpdate = z.strictObject(contactFields).meta({
  id: 'ContactUpdate',
  description:
    'Partial update: omitted fields are kept, null clears a field. `custom_fields` merges key by key (null removes a key). ' +
    'A contact must keep at least one of `phone_number`, `email` or `external_id`.',
});
export type ContactUpdateIn = z.output<typeof ContactUpdate>;

export const CONTACT_SOURCES = ['api', 'import', 'inbound_call'] as const;

export const Contact = z
  .object({
    id: z.int(),
    organization_id: z.int(),
    external_id: z.string().nullable(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    phone_number: z.string().nullable().describe('E.164'),
    phone_extension: z.string().nullable(),
    email: z.string().nullable(),
    timezone: z.string().nullable(),
    custom_fields: z.record(z.string(), z.unknown()).describe('Typed values: dates as `YYYY-MM-DD`, date-times as ISO 8601 UTC'),
    source: z.enum(CONTACT_SOURCES).describe('How the contact came to exist'),
    campaign_ids: z.array(z.int()),
    last_seen_at: z.iso.datetime().nullable().describe('When the person was last on a call'),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'Contact' });
export type ContactOut = z.output<typeof Contact>;

export const ContactParams = z.object({ contact_id: idParam });

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
/** Prefix of the query parameters that filter on a custom field, e.g. `cf.plan=gold`. */
export const CUSTOM_FILTER_PREFIX = 'cf.';

export const ContactListQuery = z
  .object({
    page: textInt(1, 1_000_000).default(1),
    page_size: textInt(1, MAX_PAGE_SIZE)
      .default(DEFAULT_PAGE_SIZE)
      .describe(`Default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}. \`per_page\` is ignored here.`),
    source: repeated(z.enum(CONTACT_SOURCES)).describe(`One of ${CONTACT_SOURCES.join(', ')}; repeat to widen`),
    campaign_id: repeated(textInt(1, MAX_ID)).describe('Integer: contacts in this campaign; repeat to widen'),
    has_email: repeated(textBool).describe('`true` or `false`'),
    has_phone: repeated(textBool).describe('`true` or `false`'),
    last_seen_after: repeated(textInstant).describe('Inclusive; ISO 8601 date-time with offset, or a date (midnight UTC)'),
    last_seen_before: repeated(textInstant).describe('Exclusive; ISO 8601 date-time with offset, or a date (midnight UTC)'),
    q: repeated(storableText(200).transform((s) => s.trim())).describe(
      'Free text over first name, last name, phone and email; every word must match one of them. Repeat to widen. An empty `q` is no filter',
    ),
  })
  // Custom-field filters have open-ended names (`cf.<key>`); any other unknown parameter, `per_page` included, is ignored.
  .catchall(z.union([z.string(), z.array(z.string())]));

export const ContactPagination = z.object({ page: z.int(), page_size: z.int(), total: z.int(), total_pages: z.int() }).meta({ id: 'ContactPagination' });

export const ContactList = z.object({
  success: z.literal(true),
  message: z.string(),
  data: z.array(Contact),
  pagination: ContactPagination,
});

// Imports ----------------------------------------------------------------------------------------------------------

/** 10,000 rows import in ~1-2 s; 25,000 keeps one request well inside a proxy's usual 60 s even on a slow machine. */
export const MAX_IMPORT_ROWS = 25_000;
/** 25,000 JSON rows of ~300 bytes each. */
export const IMPORT_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

export const ContactImportBody = z
  .strictObject({
    contacts: z.array(z.record(z.string(), z.unknown()).describe('The fields of ContactCreate')).min(1).max(MAX_IMPORT_ROWS),
  })
  .meta({
    id: 'ContactImport',
    description:
      'JSON form of an import. The same endpoint takes `text/csv`: a header row of field names and custom property keys, ' +
      'one contact per line, empty cells meaning "not given". Rows are validated one by one and reported per row.',
  });

export const IMPORT_ROW_STATUSES = ['created', 'updated', 'invalid', 'conflict'] as const;

export const ImportRowResult = z
  .object({
    index: int().describe('0-based position of the row in `contacts` (JSON) or among the data lines (CSV)'),
    status: z.enum(IMPORT_ROW_STATUSES),
    contact_id: z.int().nullable(),
    errors: z
      .array(z.object({ loc: z.array(z.union([z.string(), z.int()])), msg: z.string(), type: z.string() }))
      .optional()
      .describe('Why an `invalid` row was skipped, in the 422 `detail` shape'),
    conflicts: z
      .array(z.object({ field: z.string(), contact_id: z.int() }))
      .optional()
      .describe('For a `conflict` row: its identifiers belong to different existing contacts, so it was skipped'),
  })
  .meta({ id: 'ImportRowResult' });

export const ImportReport = z
  .object({
    total: z.int(),
    created: z.int(),
    updated: z.int(),
    invalid: z.int(),
    conflict: z.int(),
    rows: z.array(ImportRowResult),
  })
  .meta({ id: 'ImportReport' });
export type ImportReportOut = z.output<typeof ImportReport>;
