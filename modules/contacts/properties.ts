import type { Db, PrismaClient } from '../../prisma/client.js';
import { Prisma } from '../../prisma/generated/client.js';
import { AppError, notFound } from '../../lib/errors.js';
import type { ContactPropertyCreateIn, ContactPropertyOut, ContactPropertyUpdateIn, PropertyType } from './property-schemas.js';
import type { PropertyDef } from './custom-field-values.js';

/** An organisation defines at most 200 properties: each is a column in exports and a filter; more is a data model smell. */
export const MAX_PROPERTIES = 200;

type PropertyRow = Prisma.ContactPropertyGetPayload<object>;

function toApi(row: PropertyRow): ContactPropertyOut {
  return {
    id: row.id,
    key: row.key,
    label: row.label,
    type: row.type as PropertyType,
    options: (row.options as string[] | null) ?? null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The organisation's properties by key, for coercing values. */
export async function loadPropertyDefs(db: Db, organizationId: number): Promise<Map<string, PropertyDef>> {
  const rows = await db.contactProperty.findMany({ where: { organizationId }, select: { key: true, type: true, options: true } });
  return new Map(rows.map((r) => [r.key, { key: r.key, type: r.type as PropertyType, options: (r.options as string[] | null) ?? null }]));
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';
}

export async function createContactProperty(prisma: PrismaClient, organizationId: number, input: ContactPropertyCreateIn): Promise<ContactPropertyOut> {
  const existing = await prisma.contactProperty.findFirst({ where: { organizationId, key: input.key }, select: { id: true } });
  const duplicate = (id: number) => new AppError('conflict', 'A custom property with this key already exists', { field: 'key', existing_property_id: id });
  if (existing) throw duplicate(existing.id);
  const count = await prisma.contactProperty.count({ where: { organizationId } });
  if (count >= MAX_PROPERTIES) {
    throw new AppError('limit_reached', `An organisation can define at most ${MAX_PROPERTIES} custom properties`);
  }
  try {
    const row = await prisma.contactProperty.create({
      data: {
        organizationId,
        key: input.key,
        label: input.label,
        type: input.type,
        options: input.options === undefined ? Prisma.DbNull : input.options,
      },
    });
    return toApi(row);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // Lost a race with an identical create: report it exactly like the ordinary duplicate.
    const winner = await prisma.contactProperty.findFirst({ where: { organizationId, key: input.key }, select: { id: true } });
    if (!winner) throw error;
    throw duplicate(winner.id);
  }
}

export async function listContactProperties(db: Db, organizationId: number): Promise<ContactPropertyOut[]> {
  const rows = await db.contactProperty.findMany({ where: { organizationId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  return rows.map(toApi);
}

export async function getContactProperty(db: Db, organizationId: number, id: number): Promise<ContactPropertyOut> {
  const row = await db.contactProperty.findFirst({ where: { id, organizationId } });
  if (!row) throw notFound('Contact property');
  return toApi(row);
}

export async function updateContactProperty(
  prisma: PrismaClient,
  organizationId: number,
  id: number,
  patch: ContactPropertyUpdateIn,
): Promise<ContactPropertyOut> {
  return prisma.$transaction(async (tx) => {
    const locked = await tx.$queryRaw<{ id: number }[]>`SELECT id FROM contact_properties WHERE id = ${id} AND organization_id = ${organizationId} FOR UPDATE`;
    if (locked.length === 0) throw notFound('Contact property');
    const row = (await tx.contactProperty.findUnique({ where: { id } }))!;
    if (patch.options !== undefined) {
      if (row.type !== 'select') {
        throw new AppError('not_a_select', 'Only a select property has options');
      }
      const kept = new Set(patch.options);
      const removed = ((row.options as string[] | null) ?? []).filter((o) => !kept.has(o));
      if (removed.length > 0) {
        // An option still held by contacts cannot disappear: those values would no longer be valid for their property.
        const inUse = await tx.$queryRaw<{ value: string; contacts: bigint }[]>`
          SELECT custom_fields ->> ${row.key} AS value, count(*) AS contacts FROM contacts
          WHERE organization_id = ${organizationId} AND custom_fields ->> ${row.key} = ANY(${removed}::text[])
          GROUP BY 1 ORDER BY 1`;
        if (inUse.length > 0) {
          throw new AppError('option_in_use', 'Options still held by contacts cannot be removed', {
            options_in_use: inUse.map((r) => ({ option: r.value, contacts: Number(r.contacts) })),
          });
        }
      }
    }
    const updated = await tx.contactProperty.update({
      where: { id },
      data: {
        ...(patch.label === undefined ? {} : { label: patch.label }),
        ...(patch.options === undefined ? {} : { options: patch.options }),
      },
    });
    return toApi(updated);
  });
}

/** Deleting a property removes its values from every contact of the organisation, in one statement. */
export async function deleteContactProperty(prisma: PrismaClient, organizationId: number, id: number): Promise<void> {
  await prisma.$transaction(async (tx) => {
    const row = await tx.contactProperty.findFirst({ where: { id, organizationId }, select: { key: true } });
    if (!row) throw notFound('Contact property');
    const deleted = await tx.contactProperty.deleteMany({ where: { id, organizationId } });
    if (deleted.count === 0) throw notFound('Contact property');
    await tx.$executeRaw`
      UPDATE contacts SET custom_fields = custom_fields - ${row.key}::text, updated_at = now()
      WHERE organization_id = ${organizationId} AND custom_fields ? ${row.key}::text`;
  });
}
