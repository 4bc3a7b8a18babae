import type { Db } from '../../prisma/client.js';
import { notFound, ValidationFailed } from '../../lib/errors.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { maskSecret, openedForm } from '../../lib/secrets.js';
import { kindIssues, type ConnectionKind } from './schemas.js';

// An organisation's phone connections: SIP trunks (dialled through LiveKit) and carrier accounts (Twilio's REST API and
// Media Streams). The SIP password and the carrier's auth token are write-only and stored sealed (lib/secret-box.ts),
// bound to the organisation and the field: responses show a mask, and a mask sent back unchanged keeps the stored value.

type Row = NonNullable<Awaited<ReturnType<typeof readRow>>>;

export interface ConnectionInput {
  name?: string | undefined;
  kind?: ConnectionKind | undefined;
  sip_address?: string | undefined;
  sip_transport?: 'udp' | 'tcp' | 'tls' | undefined;
  username?: string | null | undefined;
  password?: string | null | undefined;
  livekit_trunk_id?: string | null | undefined;
  account_sid?: string | undefined;
  auth_token?: string | undefined;
}

type SecretField = 'password' | 'auth_token';
const sealContext = (organizationId: number, field: SecretField) => `phone-connection:${organizationId}:${field}`;

function readRow(db: Db, organizationId: number, id: number) {
  return db.phoneConnection.findFirst({ where: { id, organizationId }, include: { numbers: { select: { number: true }, orderBy: { id: 'asc' } } } });
}

function toJson(secrets: SecretBox, row: Row) {
  const masked = (stored: string | null, field: SecretField) =>
    stored === null ? null : maskSecret(openedForm(secrets, stored, sealContext(row.organizationId, field)) ?? '');
  return {
    id: row.id,
    name: row.name,
    kind: row.kind as ConnectionKind,
    sip_address: row.sipAddress,
    sip_transport: row.kind === 'sip' ? (row.sipTransport as 'udp' | 'tcp' | 'tls') : null,
    username: row.username,
    password: masked(row.password, 'password'),
    livekit_trunk_id: row.livekitTrunkId,
    account_sid: row.accountSid,
    auth_token: masked(row.authToken, 'auth_token'),
    numbers: row.numbers.map((n) => n.number),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

function columns(secrets: SecretBox, organizationId: number, input: ConnectionInput) {
  const sealed = (value: string | null, field: SecretField) => (value === null ? null : secrets.seal(value, sealContext(organizationId, field)));
  return {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.sip_address !== undefined ? { sipAddress: input.sip_address } : {}),
    ...(input.sip_transport !== undefined ? { sipTransport: input.sip_transport } : {}),
    ...(input.username !== undefined ? { username: input.username } : {}),
    ...(input.password !== undefined ? { password: sealed(input.password, 'password') } : {}),
    ...(input.livekit_trunk_id !== undefined ? { livekitTrunkId: input.livekit_trunk_id } : {}),
    ...(input.account_sid !== undefined ? { accountSid: input.account_sid } : {}),
    ...(input.auth_token !== undefined ? { authToken: sealed(input.auth_token, 'auth_token') } : {}),
  };
}

export async function createPhoneConnection(db: Db, secrets: SecretBox, organizationId: number, input: ConnectionInput & { name: string }) {
  const kind = input.kind ?? 'sip';
  const row = await db.phoneConnection.create({
    data: { organizationId, name: input.name, kind, ...columns(secrets, organizationId, input) },
    include: { numbers: { select: { number: true } } },
  });
  return toJson(secrets, row);
}

export async function getPhoneConnection(db: Db, secrets: SecretBox, organizationId: number, id: number) {
  const row = await readRow(db, organizationId, id);
  if (!row) throw notFound('Phone connection');
  return toJson(secrets, row);
}

export async function listPhoneConnections(db: Db, secrets: SecretBox, organizationId: number, page: number, perPage: number) {
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
  return { data: rows.map((row) => toJson(secrets, row)), total };
}

export async function updatePhoneConnection(db: Db, secrets: SecretBox, organizationId: number, id: number, input: ConnectionInput) {
  const existing = await readRow(db, organizationId, id);
  if (!existing) throw notFound('Phone connection');
  const issues = kindIssues(existing.kind as ConnectionKind, input as Record<string, unknown>, false);
  if (issues.length > 0) throw new ValidationFailed(issues);
  // A mask sent back unchanged keeps the stored secret, so a client can PATCH what it read.
  const patch = { ...input };
  const current = toJson(secrets, existing);
  if (patch.password != null && patch.password === current.password) delete patch.password;
  if (patch.auth_token !== undefined && patch.auth_token === current.auth_token) delete patch.auth_token;
  const updated = await db.phoneConnection.updateMany({ where: { id, organizationId }, data: columns(secrets, organizationId, patch) });
  if (updated.count === 0) throw notFound('Phone connection');
  return getPhoneConnection(db, secrets, organizationId, id);
}

/** Deletes the connection and its numbers; calls placed through them keep their records. */
export async function deletePhoneConnection(db: Db, organizationId: number, id: number): Promise<void> {
  const deleted = await db.phoneConnection.deleteMany({ where: { id, organizationId } });
  if (deleted.count === 0) throw notFound('Phone connection');
}

/** A stored connection's secret in the clear, for the request that uses it; undefined when it does not open. */
export function openedConnectionSecret(
  secrets: SecretBox | undefined,
  connection: { organizationId: number; password: string | null; authToken: string | null },
  field: SecretField,
): string | undefined {
  const stored = field === 'password' ? connection.password : connection.authToken;
  return stored === null ? undefined : openedForm(secrets, stored, sealContext(connection.organizationId, field));
}
