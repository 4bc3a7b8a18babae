import { queueAssistantDocuments } from '../knowledge/index.js';
import type { Db, PrismaClient } from '../../prisma/client.js';
import { Prisma } from '../../prisma/generated/client.js';
import { missingCredentials } from './credentials.js';
import { vendorCredentialsFromEnv } from '../../lib/vendor-credentials.js';
import { AssistantSettings, assistantFields } from './settings.js';
import { columnsOf, readAssistantRow, settingsOf, withAssignments, type AssistantRow, type Settings } from './store.js';
import { mergeBySchema } from '../../lib/zod/walk.js';
import { notFound, ValidationFailed, type ValidationDetail } from '../../lib/errors.js';
import { zodIssuesToDetail } from '../../lib/zod/detail.js';
import type { AssistantOut } from './schemas.js';
import { paginationOf } from '../../lib/pagination.js';
import type { AssistantReadCache } from './cache.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { keyProblems, maskKeys, openKeys, sealKeys, withKeyTokens } from './keys.js';
import { recordVersion, restorableSettings, type VersionActor, withExistingAssignments } from './versions.js';
import { randomUUID } from 'node:crypto';
import { NO_PRIVATE_VENDOR_HOSTS, type VendorTargetPolicy } from '../../lib/net/vendor-targets.js';
import { vendorUrlProblems } from './vendor-urls.js';

/**
 * Vendors the settings name without a key: shown on the assistant so that its author learns it before a caller does.
 * This is the API process's environment; agent workers may be configured apart, and each call checks its own.
 */
function warningsOf(settings: Settings): AssistantOut['warnings'] {
  return missingCredentials(settings, vendorCredentialsFromEnv()).map((m) => ({ code: 'missing_credentials' as const, field: m.field, message: m.message }));
}

/** The assistant as every answer shows it: vendor keys masked; warnings from the keys that open. */
function toApi(row: AssistantRow, secrets: SecretBox | undefined): AssistantOut {
  const stored = settingsOf(row);
  const { name, ...settings } = maskKeys(stored, secrets, row.organizationId);
  return {
    id: row.id,
    name,
    organization_id: row.organizationId,
    user_id: row.userId,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    version: row.version,
    ...settings,
    warnings: warningsOf(openKeys(stored, secrets, row.organizationId)),
  };
}

/**
 * A vendor key that is not a string, or a vendor URL the service would not call, is refused before anything is
 * stored; `previous` (an update's stored settings) exempts the URLs left unchanged.
 */
function checkVendorFields(settings: Settings, targets: VendorTargetPolicy, previous?: Settings): void {
  const problems = [...keyProblems(settings), ...vendorUrlProblems(settings, targets, previous)];
  if (problems.length > 0) throw new ValidationFailed(problems);
}

function unique(ids: readonly number[]): number[] {
  return [...new Set(ids)];
}

/**
 * Checks that every assigned id names a row of this organisation (a row of another organisation reads exactly like a
 * missing one) and, for tools, that the tool is enabled.
 */
async function checkAssignments(db: Db, organizationId: number, settings: Settings): Promise<void> {
  const detail: ValidationDetail[] = [];
  const report = (field: string, ids: readonly number[], found: Set<number>, what: string) => {
    ids.forEach((id, i) => {
      if (!found.has(id)) detail.push({ loc: ['body', field, i], msg: `${what} ${id} does not exist`, type: 'value_error' });
    });
  };
  const tools = unique(settings.assigned_tools);
  const documents = unique(settings.assigned_documents);
  const playbooks = unique(settings.playbook_ids ?? []);
  const [toolRows, documentRows, playbookRows] = await Promise.all([
    tools.length ? db.tool.findMany({ where: { organizationId, id: { in: tools } }, select: { id: true, enabled: true } }) : [],
    documents.length ? db.document.findMany({ where: { organizationId, id: { in: documents } }, select: { id: true } }) : [],
    playbooks.length ? db.playbook.findMany({ where: { organizationId, id: { in: playbooks } }, select: { id: true } }) : [],
  ]);
  report('assigned_tools', tools, new Set(toolRows.map((t) => t.id)), 'Tool');
  tools.forEach((id, i) => {
    if (toolRows.some((t) => t.id === id && !t.enabled)) {
      detail.push({ loc: ['body', 'assigned_tools', i], msg: `Tool ${id} is disabled`, type: 'value_error' });
    }
  });
  report('assigned_documents', documents, new Set(documentRows.map((d) => d.id)), 'Document');
  report('playbook_ids', playbooks, new Set(playbookRows.map((p) => p.id)), 'Playbook');
  if (detail.length > 0) throw new ValidationFailed(detail);
}

async function writeAssignments(db: Db, assistantId: number, settings: Settings, only?: Set<string>): Promise<void> {
  const want = (field: string) => !only || only.has(field);
  if (want('assigned_tools')) {
    await db.assistantTool.deleteMany({ where: { assistantId } });
    await db.assistantTool.createMany({ data: unique(settings.assigned_tools).map((toolId, position) => ({ assistantId, toolId, position })) });
  }
  if (want('assigned_documents')) {
    await db.assistantDocument.deleteMany({ where: { assistantId } });
    await db.assistantDocument.createMany({
      data: unique(settings.assigned_documents).map((documentId, position) => ({ assistantId, documentId, position })),
    });
  }
  if (want('playbook_ids')) {
    await db.assistantPlaybook.deleteMany({ where: { assistantId } });
    await db.assistantPlaybook.createMany({
      data: unique(settings.playbook_ids ?? []).map((playbookId, position) => ({ assistantId, playbookId, position })),
    });
  }
}

/**
 * An assistant as its API JSON, from the read cache when possible. Another organisation's assistant takes exactly the
 * path of a missing one: a cache miss (the cache is looked up by organisation and id), then one query by id and
 * organisation that finds nothing, then the same 404.
 */
export async function readAssistantJson(
  db: Db,
  cache: AssistantReadCache | undefined,
  organizationId: number,
  id: number,
  secrets: SecretBox,
): Promise<string> {
  const hit = cache?.get(organizationId, id);
  if (hit !== undefined) return hit;
  const ticket = cache?.ticket(id);
  const row = await readAssistantRow(db, organizationId, id);
  if (!row) throw notFound('Assistant');
  const json = JSON.stringify(toApi(row, secrets));
  if (cache && ticket !== undefined) cache.set(id, row.organizationId, json, ticket);
  return json;
}

/**
 * Creates the assistant with its vendor keys sealed by `secrets` (the API always passes its box; without one, as tests
 * that make rows directly do, keys are stored as given and read like rows written before keys were sealed).
 */
export async function createAssistant(
  prisma: PrismaClient,
  identity: { organizationId: number; userId: number },
  input: Settings,
  secrets?: SecretBox,
  targets: VendorTargetPolicy = NO_PRIVATE_VENDOR_HOSTS,
  via: VersionActor['via'] = 'api',
): Promise<AssistantOut> {
  const settings = AssistantSettings.safeParse(input);
  if (!settings.success) throw new ValidationFailed(zodIssuesToDetail(settings.error.issues, 'body', input));
  checkVendorFields(settings.data, targets);
  const created = await prisma.$transaction(async (tx) => {
    await checkAssignments(tx, identity.organizationId, settings.data);
    const row = await tx.assistant.create({
      data: { ...columnsOf(sealKeys(settings.data, null, secrets, identity.organizationId)), organizationId: identity.organizationId, userId: identity.userId },
    });
    await writeAssignments(tx, row.id, settings.data);
    await recordVersion(tx, (await readAssistantRow(tx, identity.organizationId, row.id))!, { userId: identity.userId, via });
    return toApi((await readAssistantRow(tx, identity.organizationId, row.id))!, secrets);
  });
  await queueAssistantDocuments(prisma, created.id);
  return created;
}

export async function listAssistants(db: Db, organizationId: number, page: number, perPage: number, secrets: SecretBox) {
  const [rows, total] = await Promise.all([
    db.assistant.findMany({
      where: { organizationId },
      include: withAssignments,
      relationLoadStrategy: 'join',
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip: (page - 1) * perPage,
      take: perPage,
    }),
    db.assistant.count({ where: { organizationId } }),
  ]);
  return { data: rows.map((row) => toApi(row, secrets)), pagination: paginationOf(page, perPage, total) };
}

/** The assistant's row, locked for this transaction: every change of its settings, draft or version goes one at a time. */
async function lockedRow(tx: Db, organizationId: number, id: number): Promise<AssistantRow> {
  const locked = await tx.$queryRaw<{ id: number }[]>`SELECT id FROM assistants WHERE id = ${id} AND organization_id = ${organizationId} FOR UPDATE`;
  if (locked.length === 0) throw notFound('Assistant');
  return (await readAssistantRow(tx, organizationId, id))!;
}

/**
 * A patch merged over `base` as an update merges it (over tokens in place of the stored keys, so a key the patch
 * leaves alone is told from one the client sends), checked whole, keys sealed; the lists it names checked against
 * the organisation's rows. `lists` are the assignment lists the patch replaced.
 */
async function mergedSettings(tx: Db, organizationId: number, base: Settings, patch: Record<string, unknown>, secrets: SecretBox, targets: VendorTargetPolicy) {
  const nonce = randomUUID();
  const merged = mergeBySchema(assistantFields, withKeyTokens(base, nonce), patch);
  const parsed = AssistantSettings.safeParse(merged);
  if (!parsed.success) throw new ValidationFailed(zodIssuesToDetail(parsed.error.issues, 'body', merged));
  checkVendorFields(parsed.data, targets, base);
  const next = sealKeys(parsed.data, { settings: base, nonce }, secrets, organizationId);
  const lists = new Set(['assigned_tools', 'assigned_documents', 'playbook_ids'].filter((k) => k in patch && patch[k] !== undefined));
  if (lists.size > 0) {
    await checkAssignments(tx, organizationId, {
      ...next,
      assigned_tools: lists.has('assigned_tools') ? next.assigned_tools : [],
      assigned_documents: lists.has('assigned_documents') ? next.assigned_documents : [],
      playbook_ids: lists.has('playbook_ids') ? next.playbook_ids : null,
    });
  }
  return { next, lists };
}

/**
 * Makes `settings` the assistant's current ones and records them as its next version: an update (only the lists it
 * replaced rewritten), a restore, a published draft (which is then gone). Answers the row as it now is.
 */
async function makeCurrent(
  tx: Db,
  organizationId: number,
  id: number,
  settings: Settings,
  actor: Parameters<typeof recordVersion>[2],
  options: { lists?: Set<string>; clearDraft?: boolean } = {},
): Promise<AssistantRow> {
  const draft = options.clearDraft ? { draft: Prisma.DbNull, draftUpdatedAt: null } : {};
  await tx.assistant.update({ where: { id }, data: { ...columnsOf(settings), ...draft } });
  await writeAssignments(tx, id, settings, options.lists);
  const row = (await readAssistantRow(tx, organizationId, id))!;
  // recordVersion only sets the number (updated_at stays this save's): the row read above is the rest of the answer.
  return { ...row, version: await recordVersion(tx, row, actor) };
}

export async function updateAssistant(
  prisma: PrismaClient,
  organizationId: number,
  id: number,
  patch: Record<string, unknown>,
  secrets: SecretBox,
  targets: VendorTargetPolicy = NO_PRIVATE_VENDOR_HOSTS,
  actor: VersionActor = { userId: null, via: 'api' },
): Promise<AssistantOut> {
  const updated = await prisma.$transaction(async (tx) => {
    // Row lock: two concurrent partial updates of different fields both survive.
    const row = await lockedRow(tx, organizationId, id);
    // Hidden assignments of tools that were disabled later stay assigned unless the client replaces the list.
    const stored = { ...settingsOf(row), assigned_tools: row.tools.map((t) => t.toolId) };
    const { next, lists } = await mergedSettings(tx, organizationId, stored, patch, secrets, targets);
    return toApi(await makeCurrent(tx, organizationId, id, next, actor, { lists }), secrets);
  });
  // Documents just attached, or all of them when the chunking or embedding model changed, get this assistant's index.
  await queueAssistantDocuments(prisma, id);
  return updated;
}

/**
 * Makes a former version current again, as a new version: its settings (vendor keys as they were sealed) replace the
 * assistant's, less any tool, document or playbook that is gone or disabled since.
 */
export async function restoreAssistantVersion(
  prisma: PrismaClient,
  organizationId: number,
  id: number,
  number: number,
  secrets: SecretBox,
  userId: number | null,
): Promise<AssistantOut> {
  const restored = await prisma.$transaction(async (tx) => {
    await lockedRow(tx, organizationId, id);
    const settings = await restorableSettings(tx, organizationId, id, number);
    return toApi(await makeCurrent(tx, organizationId, id, settings, { userId, via: 'restore', from: number }), secrets);
  });
  await queueAssistantDocuments(prisma, id);
  return restored;
}

/** A draft as answers show it: its settings with vendor keys masked, and the version it was made on. */
function draftToApi(row: { id: number; organizationId: number; version: number; draftUpdatedAt: Date | null }, draft: Settings, secrets: SecretBox) {
  return {
    assistant_id: row.id,
    based_on_version: row.version,
    updated_at: (row.draftUpdatedAt ?? new Date()).toISOString(),
    settings: maskKeys(draft, secrets, row.organizationId) as unknown as Record<string, unknown>,
  };
}

/**
 * Saves changes to the assistant's draft, not to the assistant: merged over the draft (or, without one, over the
 * current settings) and checked as an update is, keys sealed. Live calls keep the current version; test runs use the
 * draft until it is published or discarded.
 */
export async function saveAssistantDraft(
  prisma: PrismaClient,
  organizationId: number,
  id: number,
  patch: Record<string, unknown>,
  secrets: SecretBox,
  targets: VendorTargetPolicy = NO_PRIVATE_VENDOR_HOSTS,
) {
  return prisma.$transaction(async (tx) => {
    const row = await lockedRow(tx, organizationId, id);
    const base = row.draft ? (row.draft as unknown as Settings) : { ...settingsOf(row), assigned_tools: row.tools.map((t) => t.toolId) };
    const { next } = await mergedSettings(tx, organizationId, base, patch, secrets, targets);
    const saved = await tx.assistant.update({
      where: { id },
      // The draft is not the assistant: its updated_at stays the last published change's.
      data: { draft: next as unknown as Prisma.InputJsonValue, draftUpdatedAt: new Date(), updatedAt: row.updatedAt },
    });
    return draftToApi(saved, next, secrets);
  });
}

export async function getAssistantDraft(db: Db, organizationId: number, id: number, secrets: SecretBox) {
  const row = await db.assistant.findFirst({ where: { id, organizationId } });
  if (!row) throw notFound('Assistant');
  if (!row.draft) throw notFound('Draft');
  return draftToApi(row, row.draft as unknown as Settings, secrets);
}

export async function discardAssistantDraft(db: Db, organizationId: number, id: number): Promise<void> {
  const row = await db.assistant.findFirst({ where: { id, organizationId }, select: { draft: true, updatedAt: true } });
  if (!row) throw notFound('Assistant');
  if (!row.draft) throw notFound('Draft');
  await db.assistant.updateMany({ where: { id, organizationId }, data: { draft: Prisma.DbNull, draftUpdatedAt: null, updatedAt: row.updatedAt } });
}

/**
 * Publishes the draft: its settings become the assistant's as the next version (tools, documents and playbooks
 * deleted or disabled since are left out), and the draft is gone.
 */
export async function publishAssistantDraft(prisma: PrismaClient, organizationId: number, id: number, secrets: SecretBox, actor: VersionActor) {
  const published = await prisma.$transaction(async (tx) => {
    const row = await lockedRow(tx, organizationId, id);
    if (!row.draft) throw notFound('Draft');
    const settings = await withExistingAssignments(tx, organizationId, row.draft as unknown as Settings);
    return toApi(await makeCurrent(tx, organizationId, id, settings, actor, { clearDraft: true }), secrets);
  });
  await queueAssistantDocuments(prisma, id);
  return published;
}

export async function deleteAssistant(db: Db, organizationId: number, id: number): Promise<void> {
  const result = await db.assistant.deleteMany({ where: { id, organizationId } });
  if (result.count === 0) throw notFound('Assistant');
}

/** An assistant's name, for a page that names it (a call's); undefined when the organisation has no such assistant. */
export async function assistantName(prisma: PrismaClient, organizationId: number, id: number): Promise<string | undefined> {
  return (await prisma.assistant.findFirst({ where: { id, organizationId }, select: { name: true } }))?.name;
}
