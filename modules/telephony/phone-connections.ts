import type { Db } from '../../prisma/client.js';
import { notFound } from '../../lib/errors.js';
import { maskSecret } from '../../lib/secrets.js';

// An organisation's SIP trunks. The password is write-only: responses show its mask.

type Row = Awaited<ReturnType<typeof readRow>>;

export interface ConnectionInput {
  name?: string | undefined;
  sip_address?: string | undefined;
  sip_transport?: 'udp' | 'tcp' | 'tls' | undefined;
  username?: string | null | undefined;
  password?: string | null | undefined;
  livekit_trunk_id?: string | null | undefined;
}

function readRow(db: Db, organizationId: number, id: number) {
  return db.phoneConnection.findFirst({ where: { id, organizationId }, include: { numbers: { select: { number: true }, orderBy: { id: 'asc' } } } });
}

function toJson(row: NonNullable<Row>) {
  return {
    id: row.id,
    name: row.name,
    sip_address: row.sipAddress,
    sip_transport: row.sipTransport as 'udp' | 'tcp' | 'tls',
    username: row.username,
    password: row.password === null ? null : maskSecret(row.password),
    livekit_trunk_id: row.livekitTrunkId,
    numbers: row.numbers.map((n) => n.number),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

function columns(input: ConnectionInput) {
  return {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.sip_address !== undefined ? { sipAddress: input.sip_address } : {}),
    ...(input.sip_transport !== undefined ? { sipTransport: input.sip_transport } : {}),
    ...(input.username !== undefined ? { username: input.username } : {}),
    ...(input.password !== undefined ? { password: input.password } : {}),
    ...(input.livekit_trunk_id !== undefined ? { livekitTrunkId: input.livekit_trunk_id } : {}),
  };
}

export async function createPhoneConnection(db: Db, organizationId: number, input: Required<Pick<ConnectionInput, 'name' | 'sip_address'>> & ConnectionInput) {
  const row = await db.phoneConnection.create({
    data: { organizationId, name: input.name, sipAddress: input.sip_address, ...columns(input) },
    include: { numbers: { select: { number: true } } },
  });
  return toJson(row);
}

export async function getPhoneConnection(db: Db, organizationId: number, id: number) {
  const row = await readRow(db, organizationId, id);
  if (!row) throw notFound('Phone connection');
  return toJson(row);
}

export async function listPhoneConnections(db: Db, organizationId: number, page: number, perPage: number) {
  const [rows, total] = await Promise.all([
    db.phoneConnection.findMany({
      where: { organizationId },
      orderBy: { id: 'desc' },
      skip: (page - 1) * perPage,
      take: perPage,
      include: { numbers: { select: { number: true }, orderBy: { id: 'asc' } } },
    }),
    db.phoneConnection.count({ where: { organizationId } }),
  ]);
  return { data: rows.map(toJson), total };
}

export async function updatePhoneConnection(db: Db, organizationId: number, id: number, input: ConnectionInput) {
  // A mask sent back unchanged keeps the stored password, so a client can PATCH what it read.
  const existing = await readRow(db, organizationId, id);
  if (!existing) throw notFound('Phone connection');
  const patch = { ...input };
  if (patch.password !== undefined && patch.password !== null && existing.password !== null && patch.password === maskSecret(existing.password)) delete patch.password;
  const updated = await db.phoneConnection.updateMany({ where: { id, organizationId }, data: columns(patch) });
  if (updated.count === 0) throw notFound('Phone connection');
  return getPhoneConnection(db, organizationId, id);
}

/** Deletes the connection and its numbers; calls placed through them keep their records. */
export async function deletePhoneConnection(db: Db, organizationId: number, id: number): Promise<void> {
  const deleted = await db.phoneConnection.deleteMany({ where: { id, organizationId } });
  if (deleted.count === 0) throw notFound('Phone connection');
}
