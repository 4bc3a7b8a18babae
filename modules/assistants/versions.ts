import { z } from 'zod';
import type { Db, PrismaClient } from '../../prisma/client.js';
import type { Prisma } from '../../prisma/generated/client.js';
import { notFound } from '../../lib/errors.js';
import { paginationOf } from '../../lib/pagination.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { idParam } from '../../lib/zod/query.js';
import { maskKeys } from './keys.js';
import { AssistantSettings } from './settings.js';
import { type AssistantRow, type Settings, settingsOf } from './store.js';

// An assistant's versions: every saved change is one, numbered from 1, kept whole (vendor keys sealed as stored) with
// who saved it, how, and which settings changed. Any two compare setting by setting; a former one can be made current
// again, as a new version (nothing is rewritten). Calls and test runs record the version they ran.

/** Who saves a change: the user behind the API key or the dashboard session, and through which. */
export interface VersionActor {
  userId: number | null;
  via: 'api' | 'dashboard';
}

/** Settings compared whole rather than field by field: lists, and objects whose keys are the team's own. */
const WHOLE = new Set(['custom_settings', 'tts_settings.provider_config', 'llm_provider_config.custom_config', 'call_start_lookup.secret']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Every setting as a dotted path and its value. */
function leaves(value: unknown, at = '', out = new Map<string, unknown>()): Map<string, unknown> {
  if (isRecord(value) && !WHOLE.has(at)) {
    for (const [key, inner] of Object.entries(value)) leaves(inner, at ? `${at}.${key}` : key, out);
  } else out.set(at, value);
  return out;
}

/** Each setting's place in the schema's order: stored JSON (jsonb) keeps its keys in an order of its own. */
const ORDER = new Map([...leaves(AssistantSettings.parse({ name: 'order' })).keys()].map((path, i) => [path, i]));
const placeOf = (path: string) => ORDER.get(path) ?? ORDER.get(path.split('.').slice(0, -1).join('.')) ?? ORDER.size;

/** The settings that differ between two versions, by dotted path, in the settings' order. */
export function changedSettings(before: unknown, after: unknown): string[] {
  const [a, b] = [leaves(before), leaves(after)];
  const paths = [...new Set([...b.keys(), ...a.keys()])].sort((x, y) => placeOf(x) - placeOf(y));
  return paths.filter((path) => JSON.stringify(a.get(path)) !== JSON.stringify(b.get(path)));
}

/**
 * Records the assistant's settings as they now are as its next version, in the writer's transaction (which holds the
 * assistant's row); a save that changed nothing makes no version. Answers the current version's number.
 */
export async function recordVersion(tx: Db, row: AssistantRow, actor: VersionActor | { userId: number | null; via: 'restore'; from: number }): Promise<number> {
  const settings = settingsOf(row);
  const last = await tx.assistantVersion.findFirst({ where: { assistantId: row.id }, orderBy: { number: 'desc' }, select: { number: true, settings: true } });
  const changed = last ? changedSettings(last.settings, settings) : [];
  if (last && changed.length === 0 && actor.via !== 'restore') return last.number;
  const number = (last?.number ?? 0) + 1;
  await tx.assistantVersion.create({
    data: {
      organizationId: row.organizationId,
      assistantId: row.id,
      number,
      settings: settings as unknown as Prisma.InputJsonValue,
      changed,
      userId: actor.userId,
      via: actor.via,
      restoredFrom: actor.via === 'restore' ? actor.from : null,
    },
  });
  // The version is bookkeeping of the save just made: the assistant's updated_at stays that save's.
  if (row.version !== number) await tx.assistant.update({ where: { id: row.id }, data: { version: number, updatedAt: row.updatedAt } });
  return number;
}

export const VersionParams = z.object({ assistant_id: idParam, version: idParam });
export const VersionDiffQuery = z.object({
  against: z.coerce.number().int().min(1).max(2_147_483_647).optional().describe('The version to compare with; default the one before'),
});

export const AssistantVersionSummary = z
  .object({
    number: z.int(),
    created_at: z.iso.datetime(),
    user_id: z.int().nullable().describe('Who saved it; null when not known'),
    via: z.enum(['api', 'dashboard', 'restore', 'migration']),
    restored_from: z.int().nullable().describe('For a restore: the version made current again'),
    changed: z.array(z.string()).describe('The settings that changed from the version before, as dotted paths'),
    current: z.boolean().describe('The version live calls run'),
  })
  .meta({ id: 'AssistantVersionSummary' });

export const AssistantVersion = AssistantVersionSummary.extend({
  settings: z.record(z.string(), z.unknown()).describe('The whole settings of this version; vendor keys masked'),
}).meta({ id: 'AssistantVersion' });

export const AssistantVersionDiff = z
  .object({
    from: z.int(),
    to: z.int(),
    changes: z.array(z.object({ path: z.string(), before: z.unknown(), after: z.unknown() })).describe('Each setting that differs; vendor keys masked'),
  })
  .meta({ id: 'AssistantVersionDiff' });

type VersionRow = Awaited<ReturnType<PrismaClient['assistantVersion']['findFirstOrThrow']>>;

function summaryOf(row: VersionRow, current: number): z.output<typeof AssistantVersionSummary> {
  return {
    number: row.number,
    created_at: row.createdAt.toISOString(),
    user_id: row.userId,
    via: row.via as z.output<typeof AssistantVersionSummary>['via'],
    restored_from: row.restoredFrom,
    changed: row.changed as string[],
    current: row.number === current,
  };
}

/** A version's settings as an answer shows them: vendor keys masked. */
function maskedSettings(row: VersionRow, secrets: SecretBox): Record<string, unknown> {
  return maskKeys(row.settings as unknown as Settings, secrets, row.organizationId) as unknown as Record<string, unknown>;
}

async function assistantOf(db: Db, organizationId: number, id: number): Promise<{ version: number }> {
  const assistant = await db.assistant.findFirst({ where: { id, organizationId }, select: { version: true } });
  if (!assistant) throw notFound('Assistant');
  return assistant;
}

async function versionRow(db: Db, organizationId: number, assistantId: number, number: number): Promise<VersionRow> {
  const row = await db.assistantVersion.findFirst({ where: { assistantId, organizationId, number } });
  if (!row) throw notFound('Version');
  return row;
}

export async function listAssistantVersions(db: Db, organizationId: number, assistantId: number, page: number, perPage: number) {
  const { version } = await assistantOf(db, organizationId, assistantId);
  const where = { assistantId, organizationId };
  const [rows, total] = await Promise.all([
    db.assistantVersion.findMany({ where, orderBy: { number: 'desc' }, skip: (page - 1) * perPage, take: perPage }),
    db.assistantVersion.count({ where }),
  ]);
  return { data: rows.map((row) => summaryOf(row, version)), pagination: paginationOf(page, perPage, total) };
}

export async function getAssistantVersion(db: Db, organizationId: number, assistantId: number, number: number, secrets: SecretBox) {
  const { version } = await assistantOf(db, organizationId, assistantId);
  const row = await versionRow(db, organizationId, assistantId, number);
  return { ...summaryOf(row, version), settings: maskedSettings(row, secrets) };
}

/** What changed from version `against` (default: the one before) to version `number`, setting by setting. */
export async function diffAssistantVersions(
  db: Db,
  organizationId: number,
  assistantId: number,
  number: number,
  against: number | undefined,
  secrets: SecretBox,
) {
  await assistantOf(db, organizationId, assistantId);
  const to = await versionRow(db, organizationId, assistantId, number);
  const fromNumber = against ?? number - 1;
  const from = fromNumber >= 1 ? await versionRow(db, organizationId, assistantId, fromNumber) : null;
  const before = from ? leaves(maskedSettings(from, secrets)) : new Map<string, unknown>();
  const after = leaves(maskedSettings(to, secrets));
  // A key re-sealed reads as the same mask: compared sealed, shown masked.
  const changed = changedSettings(from?.settings ?? {}, to.settings);
  return {
    from: from?.number ?? 0,
    to: to.number,
    changes: changed.map((path) => ({ path, before: before.get(path) ?? null, after: after.get(path) ?? null })),
  };
}

/** The version's settings to make current: assignments whose tool, document or playbook is gone (or disabled) left out. */
export async function restorableSettings(tx: Db, organizationId: number, assistantId: number, number: number): Promise<Settings> {
  const row = await versionRow(tx, organizationId, assistantId, number);
  return withExistingAssignments(tx, organizationId, row.settings as unknown as Settings);
}

/** Settings kept aside (a version, a draft) with the tools, documents and playbooks gone or disabled since left out. */
export async function withExistingAssignments(tx: Db, organizationId: number, settings: Settings): Promise<Settings> {
  const [tools, documents, playbooks] = await Promise.all([
    tx.tool.findMany({ where: { organizationId, enabled: true, id: { in: settings.assigned_tools } }, select: { id: true } }),
    tx.document.findMany({ where: { organizationId, id: { in: settings.assigned_documents } }, select: { id: true } }),
    tx.playbook.findMany({ where: { organizationId, id: { in: settings.playbook_ids ?? [] } }, select: { id: true } }),
  ]);
  const kept = (ids: number[], rows: { id: number }[]) => ids.filter((id) => rows.some((r) => r.id === id));
  return {
    ...settings,
    assigned_tools: kept(settings.assigned_tools, tools),
    assigned_documents: kept(settings.assigned_documents, documents),
    playbook_ids: settings.playbook_ids === null ? null : kept(settings.playbook_ids, playbooks),
  };
}

export const AssistantDraft = z
  .object({
    assistant_id: z.int(),
    based_on_version: z.int().describe('The version the draft was made on: the current one when it was first saved'),
    updated_at: z.iso.datetime(),
    settings: z.record(z.string(), z.unknown()).describe('The whole settings the draft would make live; vendor keys masked'),
  })
  .meta({ id: 'AssistantDraft' });
