import type { PrismaClient } from '../../prisma/client.js';
import { Prisma } from '../../prisma/generated/client.js';
import { AppError, ValidationFailed, type ValidationDetail } from '../../lib/errors.js';
import { findUnstorableText } from '../../lib/storable-text.js';
import { zodIssuesToDetail } from '../../lib/zod/detail.js';
import { ContactCreate, contactFields, type ImportReportOut } from './schemas.js';
import { loadPropertyDefs } from './properties.js';
import { organizationRegion, prepareContact, type ContactColumns } from './service.js';
import type { FieldValue, PropertyDef } from './custom-field-values.js';

// Bulk sync (spec: "a client that syncs in bulk treats a conflict as already existing and updates instead").
// Rows are validated one by one in memory, matched to existing contacts with one query, and written with one
// set-based UPDATE and one INSERT per chunk, inside a transaction: 10,000 rows are a handful of statements, not
// 10,000 round trips, and a failure leaves nothing half-imported.

export type ImportFormat = 'json' | 'csv';
type Row = ImportReportOut['rows'][number];

/** 5,000 rows of JSON are ~1.5 MB per statement parameter: large enough to amortise, small enough to stay cheap. */
const CHUNK_ROWS = 5_000;
/** A concurrent write of the same identifiers makes a whole attempt roll back; the next attempt sees it and updates. */
const ATTEMPTS = 3;
/** Distinct from the migration lock; with the organisation id it serialises imports of one organisation only. */
const IMPORT_LOCK_KEY = 727_202_612;
/** The write transaction of a 25,000-row import takes a few seconds; 60 s leaves room for a loaded database. */
const TRANSACTION_TIMEOUT_MS = 60_000;

const CONTACT_COLUMNS = new Set(Object.keys(contactFields).filter((k) => k !== 'custom_fields'));

interface ValidRow {
  index: number;
  columns: ContactColumns;
  custom: Record<string, FieldValue>;
}

/** A CSV line as the contact fields it carries: empty cells are "not given", property columns go to custom_fields. */
function csvRowToInput(record: Record<string, unknown>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  const custom: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(record)) {
    if (typeof value === 'string' && value.trim() === '') continue;
    if (CONTACT_COLUMNS.has(column)) input[column] = value;
    else custom[column] = value;
  }
  if (Object.keys(custom).length > 0) input.custom_fields = custom;
  return input;
}

/** A CSV header names contact fields and custom property keys; anything else is refused before any row is read. */
function checkCsvHeader(records: Record<string, unknown>[], properties: ReadonlyMap<string, PropertyDef>): void {
  const columns = Object.keys(records[0] ?? {});
  const detail: ValidationDetail[] = columns
    .filter((c) => !CONTACT_COLUMNS.has(c) && !properties.has(c))
    .map((c) => ({ loc: ['body', 'header', c], msg: 'Column is neither a contact field nor a custom property key', type: 'extra_forbidden' }));
  if (detail.length > 0) throw new ValidationFailed(detail);
}

/** Where a row's problem is in the request: `body.contacts[i].field` for JSON, `body[i].column` for CSV. */
function rowLoc(format: ImportFormat, index: number, path: (string | number)[]): (string | number)[] {
  if (format === 'json') return ['body', 'contacts', index, ...path];
  return ['body', index, ...(path[0] === 'custom_fields' ? path.slice(1) : path)];
}

function validateRows(
  format: ImportFormat,
  records: Record<string, unknown>[],
  region: string,
  properties: ReadonlyMap<string, PropertyDef>,
  report: Row[],
): ValidRow[] {
  const valid: ValidRow[] = [];
  records.forEach((record, index) => {
    const input = format === 'csv' ? csvRowToInput(record) : record;
    // Requests are refused whole for such text before they get here; rows from anywhere else are held to the same
    // rule one by one, as the rows are written as JSON, which Postgres refuses outright for a NUL or a lone surrogate.
    const unstorable = findUnstorableText(input, []);
    if (unstorable.length > 0) {
      const errors = unstorable.map((d) => ({ ...d, loc: rowLoc(format, index, d.loc) }));
      report[index] = { index, status: 'invalid', contact_id: null, errors };
      return;
    }
    const parsed = ContactCreate.safeParse(input);
    if (!parsed.success) {
      const errors = zodIssuesToDetail(parsed.error.issues, 'row', input, false).map((d) => ({ ...d, loc: rowLoc(format, index, d.loc.slice(1)) }));
      report[index] = { index, status: 'invalid', contact_id: null, errors };
      return;
    }
    const prepared = prepareContact(parsed.data, region, properties, [], { allowNull: false });
    if (prepared.errors.length > 0) {
      const errors = prepared.errors.map((d) => ({ ...d, loc: rowLoc(format, index, d.loc) }));
      report[index] = { index, status: 'invalid', contact_id: null, errors };
      return;
    }
    // An import never clears a field: a blank name or a missing value leaves what is stored.
    const columns = Object.fromEntries(
      Object.entries(prepared.columns).filter(([k, v]) => v !== null || (k === 'phoneExtension' && prepared.columns.phoneNumber)),
    ) as ContactColumns;
    valid.push({ index, columns, custom: prepared.custom as Record<string, FieldValue> });
  });
  return valid;
}

interface Target {
  existingId: number | null;
  columns: ContactColumns;
  custom: Record<string, FieldValue>;
  rows: number[];
}

interface Plan {
  targets: Map<string, Target>;
  /** Rows whose identifiers belong to different contacts: index to the targets holding each identifier. */
  conflicts: Map<number, { field: string; target: string }[]>;
}

const IDENTIFIER_COLUMNS = [
  ['external_id', 'externalId'],
  ['phone_number', 'phoneNumber'],
  ['email', 'email'],
] as const;

/**
 * Decides, in file order, which contact each row creates or updates. A row whose identifiers (external id, phone,
 * email) point to one contact updates it; to none, creates one (later rows with the same identifiers update that new
 * contact rather than duplicating it); to two different contacts, is a conflict and changes nothing.
 */
function plan(valid: ValidRow[], existing: { id: number; phone_number: string | null; email: string | null; external_id: string | null }[]): Plan {
  const owners = { externalId: new Map<string, string>(), phoneNumber: new Map<string, string>(), email: new Map<string, string>() };
  const targets = new Map<string, Target>();
  for (const row of existing) {
    const key = `e${row.id}`;
    targets.set(key, { existingId: row.id, columns: {}, custom: {}, rows: [] });
    if (row.external_id) owners.externalId.set(row.external_id, key);
    if (row.phone_number) owners.phoneNumber.set(row.phone_number, key);
    if (row.email) owners.email.set(row.email, key);
  }
  const conflicts = new Map<number, { field: string; target: string }[]>();
  let created = 0;
  for (const row of valid) {
    const matches: { field: string; target: string }[] = [];
    for (const [field, column] of IDENTIFIER_COLUMNS) {
      const value = row.columns[column];
      const owner = value ? owners[column].get(value) : undefined;
      if (owner) matches.push({ field, target: owner });
    }
    const distinct = new Set(matches.map((m) => m.target));
    if (distinct.size > 1) {
      conflicts.set(row.index, matches);
      continue;
    }
    let key = [...distinct][0];
    if (key === undefined) {
      key = `n${created++}`;
      targets.set(key, { existingId: null, columns: {}, custom: {}, rows: [] });
    }
    const target = targets.get(key)!;
    target.columns = { ...target.columns, ...row.columns };
    target.custom = { ...target.custom, ...row.custom };
    target.rows.push(row.index);
    for (const [, column] of IDENTIFIER_COLUMNS) {
      const value = row.columns[column];
      if (value) owners[column].set(value, key);
    }
  }
  return { targets, conflicts };
}

function asRecord(target: Target, extra: Record<string, unknown>) {
  const c = target.columns;
  return {
    ...extra,
    external_id: c.externalId ?? null,
    first_name: c.firstName ?? null,
    last_name: c.lastName ?? null,
    phone_number: c.phoneNumber ?? null,
    phone_extension: c.phoneExtension ?? null,
    email: c.email ?? null,
    timezone: c.timezone ?? null,
    custom_fields: target.custom,
  };
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function isUniqueViolation(error: unknown): boolean {
  if (error instanceof Prisma.PrismaClientKnownRequestError) {
    return error.code === 'P2002' || (error.code === 'P2010' && /23505|unique/i.test(error.message));
  }
  return error instanceof Error && /23505|unique constraint/i.test(error.message);
}

/** One attempt: lock, read the contacts the file names, plan, write. Returns the contact id of every target. */
async function applyOnce(prisma: PrismaClient, organizationId: number, valid: ValidRow[]) {
  return prisma.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${IMPORT_LOCK_KEY}::int, ${organizationId}::int)`;
      const values = (column: 'externalId' | 'phoneNumber' | 'email') => [...new Set(valid.map((r) => r.columns[column]).filter((v): v is string => !!v))];
      const existing = await tx.$queryRaw<{ id: number; phone_number: string | null; email: string | null; external_id: string | null }[]>`
        SELECT id, phone_number, email, external_id FROM contacts
        WHERE organization_id = ${organizationId}
          AND (phone_number IN (SELECT jsonb_array_elements_text(${JSON.stringify(values('phoneNumber'))}::jsonb))
            OR email IN (SELECT jsonb_array_elements_text(${JSON.stringify(values('email'))}::jsonb))
            OR external_id IN (SELECT jsonb_array_elements_text(${JSON.stringify(values('externalId'))}::jsonb)))`;
      const { targets, conflicts } = plan(valid, existing);

      const updates = [...targets.values()].filter((t) => t.existingId !== null && t.rows.length > 0);
      for (const batch of chunks(updates, CHUNK_ROWS)) {
        const json = JSON.stringify(batch.map((t) => asRecord(t, { id: t.existingId })));
        await tx.$executeRaw`
          UPDATE contacts AS c SET
            external_id = COALESCE(r.external_id, c.external_id),
            first_name = COALESCE(r.first_name, c.first_name),
            last_name = COALESCE(r.last_name, c.last_name),
            phone_number = COALESCE(r.phone_number, c.phone_number),
            phone_extension = CASE WHEN r.phone_number IS NULL THEN c.phone_extension ELSE r.phone_extension END,
            email = COALESCE(r.email, c.email),
            timezone = COALESCE(r.timezone, c.timezone),
            custom_fields = c.custom_fields || COALESCE(r.custom_fields, '{}'::jsonb),
            updated_at = now()
          FROM jsonb_to_recordset(${json}::jsonb) AS r(id integer, external_id text, first_name text, last_name text,
            phone_number text, phone_extension text, email text, timezone text, custom_fields jsonb)
          WHERE c.id = r.id AND c.organization_id = ${organizationId}`;
      }

      const inserts = [...targets.entries()].filter(([, t]) => t.existingId === null);
      const idOf = new Map<string, number>();
      for (const [key, t] of targets) if (t.existingId !== null) idOf.set(key, t.existingId);
      for (const batch of chunks(inserts, CHUNK_ROWS)) {
        const json = JSON.stringify(batch.map(([, t], ord) => asRecord(t, { ord })));
        const rows = await tx.$queryRaw<{ id: number; phone_number: string | null; email: string | null; external_id: string | null }[]>`
          INSERT INTO contacts (organization_id, external_id, first_name, last_name, phone_number, phone_extension, email,
            timezone, custom_fields, source, created_at, updated_at)
          SELECT ${organizationId}, r.external_id, r.first_name, r.last_name, r.phone_number, r.phone_extension, r.email,
            r.timezone, COALESCE(r.custom_fields, '{}'::jsonb), 'import', now(), now()
          FROM jsonb_to_recordset(${json}::jsonb) AS r(ord integer, external_id text, first_name text, last_name text,
            phone_number text, phone_extension text, email text, timezone text, custom_fields jsonb)
          ORDER BY r.ord
          RETURNING id, phone_number, email, external_id`;
        // Every new contact has at least one identifier, each unique in the organisation: it finds its row again.
        const byExternal = new Map(rows.filter((r) => r.external_id).map((r) => [r.external_id!, r.id]));
        const byPhone = new Map(rows.filter((r) => r.phone_number).map((r) => [r.phone_number!, r.id]));
        const byEmail = new Map(rows.filter((r) => r.email).map((r) => [r.email!, r.id]));
        for (const [key, t] of batch) {
          const c = t.columns;
          const id = (c.externalId && byExternal.get(c.externalId)) || (c.phoneNumber && byPhone.get(c.phoneNumber)) || (c.email && byEmail.get(c.email));
          if (id) idOf.set(key, id);
        }
      }
      return { targets, conflicts, idOf };
    },
    { timeout: TRANSACTION_TIMEOUT_MS, maxWait: 10_000 },
  );
}

/**
 * Imports contacts, creating new people and updating known ones, and reports what happened to each row. `records`
 * are the JSON `contacts` items, or the CSV lines keyed by header.
 */
export async function importContacts(
  prisma: PrismaClient,
  organizationId: number,
  format: ImportFormat,
  records: Record<string, unknown>[],
): Promise<ImportReportOut> {
  const [region, properties] = await Promise.all([organizationRegion(prisma, organizationId), loadPropertyDefs(prisma, organizationId)]);
  if (format === 'csv') checkCsvHeader(records, properties);
  const report: Row[] = new Array(records.length);
  const valid = validateRows(format, records, region, properties, report);

  let result: Awaited<ReturnType<typeof applyOnce>> | undefined;
  for (let attempt = 1; attempt <= ATTEMPTS && result === undefined; attempt++) {
    try {
      result = await applyOnce(prisma, organizationId, valid);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
  }
  if (result === undefined) {
    throw new AppError('import_conflict', 'Contacts in this import kept changing concurrently; nothing was imported, retry the import');
  }

  const { targets, conflicts, idOf } = result;
  for (const [key, target] of targets) {
    target.rows.forEach((index, i) => {
      const created = target.existingId === null && i === 0;
      report[index] = { index, status: created ? 'created' : 'updated', contact_id: idOf.get(key) ?? null };
    });
  }
  for (const [index, matches] of conflicts) {
    report[index] = {
      index,
      status: 'conflict',
      contact_id: null,
      conflicts: matches.map((m) => ({ field: m.field, contact_id: idOf.get(m.target)! })),
    };
  }
  const count = (status: Row['status']) => report.filter((r) => r.status === status).length;
  return {
    total: records.length,
    created: count('created'),
    updated: count('updated'),
    invalid: count('invalid'),
    conflict: count('conflict'),
    rows: report,
  };
}
