import type { Db, PrismaClient } from '../../prisma/client.js';
import { Prisma } from '../../prisma/generated/client.js';
import { AppError, notFound, ValidationFailed, type ValidationDetail } from '../../lib/errors.js';
import { IDENTIFIERS, NEEDS_IDENTIFIER, type ContactCreateIn, type ContactOut, type ContactUpdateIn, CONTACT_SOURCES } from './schemas.js';
import { loadPropertyDefs } from './properties.js';
import { coerceCustomFields, coerceValue, type FieldValue, type PropertyDef } from './custom-field-values.js';
import { scrubContactCalls } from './call-scrub.js';
import { scrubContactTestRuns } from './test-run-scrub.js';
import type { RecordingStorage } from '../../media/recording/storage.js';
import { peaksKey } from '../../media/recording/peaks.js';
import { normalizePhone, phoneDigitsOf } from '../../lib/phone.js';

export type ContactSource = (typeof CONTACT_SOURCES)[number];
type Identifier = (typeof IDENTIFIERS)[number];

const withCampaigns = {
  campaigns: { select: { campaignId: true }, orderBy: { campaignId: 'asc' } },
} satisfies Prisma.ContactInclude;

type ContactRow = Prisma.ContactGetPayload<{ include: typeof withCampaigns }>;

export function contactToApi(row: ContactRow): ContactOut {
  return {
    id: row.id,
    organization_id: row.organizationId,
    external_id: row.externalId,
    first_name: row.firstName,
    last_name: row.lastName,
    phone_number: row.phoneNumber,
    phone_extension: row.phoneExtension,
    email: row.email,
    timezone: row.timezone,
    custom_fields: (row.customFields ?? {}) as Record<string, unknown>,
    source: row.source as ContactSource,
    campaign_ids: row.campaigns.map((c) => c.campaignId),
    last_seen_at: row.lastSeenAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The contact columns a request can write; a missing key leaves the column alone, a null clears it. */
export interface ContactColumns {
  externalId?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  phoneNumber?: string | null;
  phoneExtension?: string | null;
  email?: string | null;
  timezone?: string | null;
}

export interface PreparedContact {
  columns: ContactColumns;
  /** Custom field values to set; a null removes the key. */
  custom: Record<string, FieldValue | null>;
  errors: ValidationDetail[];
}

/**
 * Turns validated request fields into columns: phone numbers to E.164 in the organisation's region, custom fields to
 * their property types. Errors are collected with `loc` under `loc` (e.g. `['body']`), so a request reports them all.
 */
export function prepareContact(
  input: ContactUpdateIn,
  region: string,
  properties: ReadonlyMap<string, PropertyDef>,
  loc: (string | number)[],
  options: { allowNull: boolean },
): PreparedContact {
  const columns: ContactColumns = {};
  const errors: ValidationDetail[] = [];
  const copy = <K extends keyof ContactColumns>(column: K, value: string | null | undefined) => {
    if (value !== undefined) columns[column] = value;
  };
  copy('externalId', input.external_id);
  copy('firstName', input.first_name);
  copy('lastName', input.last_name);
  copy('email', input.email);
  copy('timezone', input.timezone);
  if (input.phone_number === null) {
    columns.phoneNumber = null;
    columns.phoneExtension = null;
  } else if (input.phone_number !== undefined) {
    const phone = normalizePhone(input.phone_number, region);
    if (phone) {
      columns.phoneNumber = phone.e164;
      columns.phoneExtension = phone.extension;
    } else {
      errors.push({ loc: [...loc, 'phone_number'], msg: 'value is not a valid phone number', type: 'value_error' });
    }
  }
  let custom: Record<string, FieldValue | null> = {};
  if (input.custom_fields) {
    const coerced = coerceCustomFields(properties, input.custom_fields, [...loc, 'custom_fields'], options);
    custom = coerced.values;
    errors.push(...coerced.errors);
  }
  return { columns, custom, errors };
}

export async function organizationRegion(db: Db, organizationId: number): Promise<string> {
  const org = await db.organization.findUnique({ where: { id: organizationId }, select: { defaultRegion: true } });
  return org?.defaultRegion ?? 'US';
}

export interface Conflict {
  field: Identifier;
  contact_id: number;
}

/** Which existing contacts already hold these identifiers, in the order phone, email, external id. */
export async function findConflicts(
  db: Db,
  organizationId: number,
  values: { phoneNumber?: string | null; email?: string | null; externalId?: string | null },
  excludeId?: number,
): Promise<Conflict[]> {
  const wanted: [Identifier, Prisma.ContactWhereInput][] = [];
  if (values.phoneNumber) wanted.push(['phone_number', { phoneNumber: values.phoneNumber }]);
  if (values.email) wanted.push(['email', { email: values.email }]);
  if (values.externalId) wanted.push(['external_id', { externalId: values.externalId }]);
  if (wanted.length === 0) return [];
  const rows = await db.contact.findMany({
    where: { organizationId, OR: wanted.map(([, w]) => w), ...(excludeId === undefined ? {} : { id: { not: excludeId } }) },
    select: { id: true, phoneNumber: true, email: true, externalId: true },
  });
  const conflicts: Conflict[] = [];
  for (const [field] of wanted) {
    const match = rows.find((r) =>
      field === 'phone_number' ? r.phoneNumber === values.phoneNumber : field === 'email' ? r.email === values.email : r.externalId === values.externalId,
    );
    if (match) conflicts.push({ field, contact_id: match.id });
  }
  return conflicts;
}

/** The 409 body names the first conflicting field and the contact holding it, then lists every conflict. */
export function conflictError(conflicts: Conflict[]): AppError {
  const first = conflicts[0]!;
  return new AppError('conflict', `A contact with this ${first.field} already exists`, {
    field: first.field,
    existing_contact_id: first.contact_id,
    conflicts,
  });
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';
}

async function readRow(db: Db, organizationId: number, id: number): Promise<ContactRow | null> {
  return db.contact.findFirst({ where: { id, organizationId }, include: withCampaigns, relationLoadStrategy: 'join' });
}

function withoutNulls(values: Record<string, FieldValue | null>): Record<string, FieldValue> {
  return Object.fromEntries(Object.entries(values).filter((e): e is [string, FieldValue] => e[1] !== null));
}

export async function createContact(prisma: PrismaClient, organizationId: number, input: ContactCreateIn, source: ContactSource = 'api'): Promise<ContactOut> {
  const [region, properties] = await Promise.all([
    organizationRegion(prisma, organizationId),
    input.custom_fields && Object.keys(input.custom_fields).length > 0 ? loadPropertyDefs(prisma, organizationId) : new Map<string, PropertyDef>(),
  ]);
  const prepared = prepareContact(input, region, properties, ['body'], { allowNull: false });
  if (prepared.errors.length > 0) throw new ValidationFailed(prepared.errors);
  const { columns } = prepared;
  const existing = await findConflicts(prisma, organizationId, columns);
  if (existing.length > 0) throw conflictError(existing);
  try {
    const row = await prisma.contact.create({
      data: { ...columns, organizationId, source, customFields: withoutNulls(prepared.custom) },
      include: withCampaigns,
    });
    return contactToApi(row);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // A concurrent request created the same person between the check and the insert; the unique index refused ours.
    const winners = await findConflicts(prisma, organizationId, columns);
    if (winners.length === 0) throw error;
    throw conflictError(winners);
  }
}

export async function getContact(db: Db, organizationId: number, id: number): Promise<ContactOut> {
  const row = await readRow(db, organizationId, id);
  if (!row) throw notFound('Contact');
  return contactToApi(row);
}

export async function updateContact(prisma: PrismaClient, organizationId: number, id: number, patch: ContactUpdateIn): Promise<ContactOut> {
  let written: ContactColumns = {};
  try {
    return await prisma.$transaction(async (tx) => {
      // Row lock: a concurrent custom_fields merge on the same contact is applied after ours, not over it.
      const locked = await tx.$queryRaw<{ id: number }[]>`SELECT id FROM contacts WHERE id = ${id} AND organization_id = ${organizationId} FOR UPDATE`;
      if (locked.length === 0) throw notFound('Contact');
      // One after another: a transaction is one connection, which runs one statement at a time anyway.
      const row = await tx.contact.findUniqueOrThrow({ where: { id } });
      const region = await organizationRegion(tx, organizationId);
      const properties =
        patch.custom_fields && Object.keys(patch.custom_fields).length > 0 ? await loadPropertyDefs(tx, organizationId) : new Map<string, PropertyDef>();
      const prepared = prepareContact(patch, region, properties, ['body'], { allowNull: true });
      if (prepared.errors.length > 0) throw new ValidationFailed(prepared.errors);
      written = prepared.columns;
      const next = {
        phoneNumber: 'phoneNumber' in written ? written.phoneNumber : row.phoneNumber,
        email: 'email' in written ? written.email : row.email,
        externalId: 'externalId' in written ? written.externalId : row.externalId,
      };
      if (!next.phoneNumber && !next.email && !next.externalId) {
        throw new ValidationFailed([{ loc: ['body'], msg: NEEDS_IDENTIFIER, type: 'missing_identifier' }]);
      }
      const conflicts = await findConflicts(tx, organizationId, written, id);
      if (conflicts.length > 0) throw conflictError(conflicts);
      const customFields: Record<string, unknown> = { ...((row.customFields ?? {}) as Record<string, unknown>) };
      for (const [key, value] of Object.entries(prepared.custom)) {
        if (value === null) delete customFields[key];
        else customFields[key] = value;
      }
      await tx.contact.update({ where: { id }, data: { ...written, customFields: customFields as Prisma.InputJsonObject } });
      return contactToApi((await readRow(tx, organizationId, id))!);
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const winners = await findConflicts(prisma, organizationId, written, id);
    if (winners.length === 0) throw error;
    throw conflictError(winners);
  }
}

/**
 * A contact with a thousand calls (ten turns and an event each) was scrubbed in 1.4 s on a loaded 2-core machine; a
 * minute, rather than Prisma's default 5 s, leaves room for tens of thousands.
 */
const DELETE_TIMEOUT_MS = 60_000;

/**
 * Deletes the contact and keeps its calls with the personal details removed (spec behaviour 5), in one transaction:
 * the far end's number masked on each call and in the events already written about it, the per-call variables
 * cleared, the contact link cleared, and the contact's details replaced wherever the calls' records quote them
 * (modules/contacts/call-scrub.ts).
 */
/**
 * Deletes a contact, keeping its calls and test runs without its details. With `recordings`, its calls' recordings go
 * too: their rows in the deletion's transaction, their files once it has committed (a file left by a failed removal is
 * listed nowhere and read by nothing; the log names it).
 */
export async function deleteContact(
  prisma: PrismaClient,
  organizationId: number,
  id: number,
  options: { recordings?: { storage: RecordingStorage; onRemoveFailed?: (key: string, error: unknown) => void } } = {},
): Promise<void> {
  const removed = await prisma.$transaction(
    async (tx) => {
      // Row lock: of two concurrent deletes, the second waits for the first and then finds nothing (404), not a row gone under it.
      const found = await tx.$queryRaw<{ id: number }[]>`SELECT id FROM contacts WHERE id = ${id} AND organization_id = ${organizationId} FOR UPDATE`;
      if (found.length === 0) throw notFound('Contact');
      // Read before the calls lose their link to the contact.
      const recordings = options.recordings
        ? await tx.callRecording.findMany({
            where: { call: { organizationId, contactId: id } },
            select: { id: true, storageKey: true, call: { select: { callSid: true } } },
          })
        : [];
      if (recordings.length > 0) await tx.callRecording.deleteMany({ where: { id: { in: recordings.map((r) => r.id) } } });
      await scrubContactCalls(tx, organizationId, id);
      await scrubContactTestRuns(tx, organizationId, id);
      await tx.contact.delete({ where: { id } });
      // The tracks, and the waveform peaks stored beside them: when the caller spoke is theirs too.
      const peaks = [...new Set(recordings.map((r) => peaksKey(r.call.callSid)))];
      return [...recordings.map((r) => r.storageKey), ...peaks];
    },
    { timeout: DELETE_TIMEOUT_MS, maxWait: 10_000 },
  );
  for (const key of removed) {
    await options.recordings!.storage.remove(key).catch((error: unknown) => options.recordings!.onRemoveFailed?.(key, error));
  }
}

export interface ContactFilters {
  source?: ContactSource[];
  campaign_id?: number[];
  has_email?: boolean[];
  has_phone?: boolean[];
  last_seen_after?: Date[];
  last_seen_before?: Date[];
  q?: string[];
  /** `cf.<key>` query parameters: key to the values as text. */
  custom?: Record<string, string[]>;
}

/** A presence filter given both `true` and `false` widens to everything, so it adds no condition. */
function presence(values: boolean[] | undefined, field: 'email' | 'phoneNumber'): Prisma.ContactWhereInput | null {
  if (!values || values.length === 0) return null;
  const wants = new Set(values);
  if (wants.size === 2) return null;
  return wants.has(true) ? { [field]: { not: null } } : { [field]: null };
}

/** LIKE treats `%`, `_` and `\\` as patterns; a search for them means the characters themselves. */
function literal(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function searchCondition(text: string): Prisma.ContactWhereInput {
  const wordMatches = text
    .split(/\s+/)
    .filter(Boolean)
    .map((word): Prisma.ContactWhereInput => {
      const digits = phoneDigitsOf(word);
      return {
        OR: [
          { firstName: { contains: literal(word), mode: 'insensitive' } },
          { lastName: { contains: literal(word), mode: 'insensitive' } },
          { email: { contains: literal(word.toLowerCase()) } },
          ...(digits ? [{ phoneNumber: { contains: digits } }] : []),
        ],
      };
    });
  // "(650) 253-0000" is one phone number even though it holds spaces.
  const digits = phoneDigitsOf(text);
  const alternatives: Prisma.ContactWhereInput[] = [{ AND: wordMatches }];
  if (digits) alternatives.push({ phoneNumber: { contains: digits } });
  return { OR: alternatives };
}

/** The where clause of a list: each filter is an OR of its values, different filters AND together. */
export function contactWhere(organizationId: number, filters: ContactFilters, properties: ReadonlyMap<string, PropertyDef>): Prisma.ContactWhereInput {
  const and: Prisma.ContactWhereInput[] = [];
  if (filters.source?.length) and.push({ source: { in: filters.source } });
  if (filters.campaign_id?.length) and.push({ campaigns: { some: { campaignId: { in: filters.campaign_id } } } });
  const email = presence(filters.has_email, 'email');
  if (email) and.push(email);
  const phone = presence(filters.has_phone, 'phoneNumber');
  if (phone) and.push(phone);
  // Repeated bounds widen: "after A or after B" is "after the earlier one", "before A or before B" the later.
  if (filters.last_seen_after?.length) {
    and.push({ lastSeenAt: { gte: new Date(Math.min(...filters.last_seen_after.map((d) => d.getTime()))) } });
  }
  if (filters.last_seen_before?.length) {
    and.push({ lastSeenAt: { lt: new Date(Math.max(...filters.last_seen_before.map((d) => d.getTime()))) } });
  }
  // A search box submitted empty searches for nothing in particular, so it filters nothing.
  const searches = filters.q?.filter((text) => text !== '') ?? [];
  if (searches.length > 0) and.push({ OR: searches.map(searchCondition) });
  const errors: ValidationDetail[] = [];
  for (const [key, texts] of Object.entries(filters.custom ?? {})) {
    const property = properties.get(key);
    const loc = ['query', `cf.${key}`];
    if (!property) {
      errors.push({ loc, msg: 'No custom property has this key', type: 'extra_forbidden' });
      continue;
    }
    const values: FieldValue[] = [];
    texts.forEach((text, i) => {
      const result = coerceValue(property, text);
      if (result.ok) values.push(result.value);
      else errors.push({ loc: texts.length > 1 ? [...loc, i] : loc, msg: result.msg, type: result.type });
    });
    and.push({ OR: values.map((value) => ({ customFields: { path: [key], equals: value } })) });
  }
  if (errors.length > 0) throw new ValidationFailed(errors);
  return { organizationId, AND: and };
}

export async function listContacts(db: Db, organizationId: number, filters: ContactFilters, page: number, pageSize: number) {
  const properties = filters.custom && Object.keys(filters.custom).length > 0 ? await loadPropertyDefs(db, organizationId) : new Map<string, PropertyDef>();
  const where = contactWhere(organizationId, filters, properties);
  const [rows, total] = await Promise.all([
    db.contact.findMany({
      where,
      include: withCampaigns,
      relationLoadStrategy: 'join',
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip: (page - 1) * pageSize,
      take: pageSize,
    }),
    db.contact.count({ where }),
  ]);
  return {
    data: rows.map(contactToApi),
    pagination: { page, page_size: pageSize, total, total_pages: Math.ceil(total / pageSize) },
  };
}
