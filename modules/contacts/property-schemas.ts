import { z } from 'zod';
import { idParam } from '../../lib/zod/query.js';
import { storableText } from './schemas.js';

export const PROPERTY_TYPES = ['text', 'number', 'boolean', 'date', 'datetime', 'select'] as const;
export type PropertyType = (typeof PROPERTY_TYPES)[number];

/**
 * Contact fields that a property key may not shadow: `{{contact.<name>}}` in templates reads a contact field or a
 * custom field by the same name, so the two namespaces must not overlap.
 */
export const RESERVED_KEYS = [
  'id',
  'organization_id',
  'external_id',
  'first_name',
  'last_name',
  'name',
  'full_name',
  'phone_number',
  'phone_extension',
  'email',
  'timezone',
  'custom_fields',
  'source',
  'campaign_ids',
  'last_seen_at',
  'created_at',
  'updated_at',
];

/** A select offers at most 200 choices of up to 100 characters: a picker, not a data set. */
const MAX_OPTIONS = 200;
const options = z
  .array(
    storableText(100)
      .transform((o) => o.trim())
      .pipe(z.string().min(1)),
  )
  .min(1)
  .max(MAX_OPTIONS)
  .refine((list) => new Set(list).size === list.length, { message: 'Options should be unique', params: { type: 'unique_items' } });

const label = storableText(200)
  .transform((l) => l.trim())
  .pipe(z.string().min(1));

export const ContactPropertyCreate = z
  .strictObject({
    key: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,62}$/, { error: 'Key should start with a lower-case letter and hold only a-z, 0-9 and _ (at most 63)' })
      .refine((k) => !RESERVED_KEYS.includes(k), { message: 'Key is the name of a contact field', params: { type: 'reserved_key' } })
      .describe('Name used in `custom_fields`, filters (`cf.<key>`), CSV columns and `{{contact.<key>}}`. Fixed once created.'),
    label,
    type: z.enum(PROPERTY_TYPES).describe('Fixed once created'),
    options: options.optional().describe('Required for `select`, not allowed for other types'),
  })
  .superRefine((value, ctx) => {
    if (value.type === 'select' && value.options === undefined) {
      ctx.addIssue({ code: 'custom', message: 'A select property needs options', params: { type: 'missing' }, path: ['options'] });
    }
    if (value.type !== 'select' && value.options !== undefined) {
      ctx.addIssue({ code: 'custom', message: 'Only a select property has options', params: { type: 'extra_forbidden' }, path: ['options'] });
    }
  })
  .meta({ id: 'ContactPropertyCreate' });
export type ContactPropertyCreateIn = z.output<typeof ContactPropertyCreate>;

export const ContactPropertyUpdate = z
  .strictObject({
    label: label.optional(),
    options: options.optional().describe('Replaces the list; an option still held by a contact cannot be removed (409)'),
  })
  .meta({ id: 'ContactPropertyUpdate', description: 'Only the label and, for a select, the options can change.' });
export type ContactPropertyUpdateIn = z.output<typeof ContactPropertyUpdate>;

export const ContactProperty = z
  .object({
    id: z.int(),
    key: z.string(),
    label: z.string(),
    type: z.enum(PROPERTY_TYPES),
    options: z.array(z.string()).nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'ContactProperty' });
export type ContactPropertyOut = z.output<typeof ContactProperty>;

export const ContactPropertyParams = z.object({ property_id: idParam });
