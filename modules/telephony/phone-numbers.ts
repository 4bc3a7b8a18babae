import type { Db } from '../../prisma/client.js';
import { Prisma } from '../../prisma/generated/client.js';
import { AppError, notFound, ValidationFailed } from '../../lib/errors.js';

// The organisation's managed numbers. A number is unique on the whole platform, since an inbound call must find
// exactly one organisation by the number it arrived on.

type Row = NonNullable<Awaited<ReturnType<Db['phoneNumber']['findFirst']>>>;

function toJson(row: Row) {
  return {
    id: row.id,
    number: row.number,
    phone_connection_id: row.phoneConnectionId,
    label: row.label,
    assistant_id: row.assistantId,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** References in a body must name rows of the caller's organisation; another organisation's id reads as missing. */
async function checkReferences(db: Db, organizationId: number, input: { phone_connection_id?: number | undefined; assistant_id?: number | null | undefined }) {
  const problems = [];
  if (input.phone_connection_id !== undefined) {
    const found = await db.phoneConnection.count({ where: { id: input.phone_connection_id, organizationId } });
    if (found === 0) problems.push({ loc: ['body', 'phone_connection_id'], msg: 'No such phone connection', type: 'not_found' });
  }
  if (input.assistant_id !== undefined && input.assistant_id !== null) {
    const found = await db.assistant.count({ where: { id: input.assistant_id, organizationId } });
    if (found === 0) problems.push({ loc: ['body', 'assistant_id'], msg: 'No such assistant', type: 'not_found' });
  }
  if (problems.length > 0) throw new ValidationFailed(problems);
}

export async function createPhoneNumber(
  db: Db,
  organizationId: number,
  input: { number: string; phone_connection_id: number; label: string | null; assistant_id: number | null },
) {
  await checkReferences(db, organizationId, input);
  try {
    const row = await db.phoneNumber.create({
      data: { organizationId, number: input.number, phoneConnectionId: input.phone_connection_id, label: input.label, assistantId: input.assistant_id },
    });
    return toJson(row);
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
      // The same answer whether this organisation or another holds it: the number is taken, nothing more is said.
      throw new AppError('conflict', 'This number is already registered');
    }
    throw error;
  }
}

export async function getPhoneNumber(db: Db, organizationId: number, id: number) {
  const row = await db.phoneNumber.findFirst({ where: { id, organizationId } });
  if (!row) throw notFound('Phone number');
  return toJson(row);
}

export async function listPhoneNumbers(db: Db, organizationId: number, page: number, perPage: number) {
  const [rows, total] = await Promise.all([
    db.phoneNumber.findMany({ where: { organizationId }, orderBy: { id: 'desc' }, skip: (page - 1) * perPage, take: perPage }),
    db.phoneNumber.count({ where: { organizationId } }),
  ]);
  return { data: rows.map(toJson), total };
}

export async function updatePhoneNumber(
  db: Db,
  organizationId: number,
  id: number,
  input: { phone_connection_id?: number | undefined; label?: string | null | undefined; assistant_id?: number | null | undefined },
) {
  await getPhoneNumber(db, organizationId, id);
  await checkReferences(db, organizationId, input);
  await db.phoneNumber.updateMany({
    where: { id, organizationId },
    data: {
      ...(input.phone_connection_id !== undefined ? { phoneConnectionId: input.phone_connection_id } : {}),
      ...(input.label !== undefined ? { label: input.label } : {}),
      ...(input.assistant_id !== undefined ? { assistantId: input.assistant_id } : {}),
    },
  });
  return getPhoneNumber(db, organizationId, id);
}

export async function deletePhoneNumber(db: Db, organizationId: number, id: number): Promise<void> {
  const deleted = await db.phoneNumber.deleteMany({ where: { id, organizationId } });
  if (deleted.count === 0) throw notFound('Phone number');
}
