import type { Db, PrismaClient } from '../../prisma/client.js';
import { Prisma } from '../../prisma/generated/client.js';
import { AppError, notFound, ValidationFailed, type ValidationDetail } from '../../lib/errors.js';
import { paginationOf } from '../../lib/pagination.js';
import { PlaybookCreate, type PlaybookCreateIn, type PlaybookOut, type PlaybookUpdateIn } from './schemas.js';

// The organisation's playbooks. Columns hold what is searched or unique (name, description, enabled, the notes in
// `content`); `config` holds the procedure (goal, instructions, examples, values to collect, mode); `playbook_tools`
// the tools it may use, in order. An update is merged into the stored playbook and checked whole, as a new one would be.

/** What `config` holds. */
export interface StoredPlaybookConfig {
  goal: string;
  instructions: string[];
  examples: PlaybookCreateIn['examples'];
  collect: PlaybookCreateIn['collect'];
  mode: PlaybookCreateIn['mode'];
}

type PlaybookRow = {
  id: number;
  name: string;
  content: string;
  description: string;
  enabled: boolean;
  config: unknown;
  createdAt: Date;
  updatedAt: Date;
  tools: { toolId: number }[];
};

const withTools = { tools: { select: { toolId: true }, orderBy: { position: 'asc' as const } } };

/** A stored config read leniently: rows written before playbooks had one hold `{}`. */
export function configOf(raw: unknown): StoredPlaybookConfig {
  const c = (raw && typeof raw === 'object' ? raw : {}) as Partial<StoredPlaybookConfig>;
  return { goal: c.goal ?? '', instructions: c.instructions ?? [], examples: c.examples ?? [], collect: c.collect ?? [], mode: c.mode ?? 'auto' };
}

function toApi(row: PlaybookRow): PlaybookOut {
  const config = configOf(row.config);
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    enabled: row.enabled,
    goal: config.goal,
    instructions: config.instructions,
    examples: config.examples,
    content: row.content,
    tool_ids: row.tools.map((t) => t.toolId),
    collect: config.collect,
    mode: config.mode,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** Every problem of the playbook beyond its fields' shapes, located in the body; tools are checked against the rows. */
async function problemsOf(db: Db, organizationId: number, playbook: PlaybookCreateIn, checkTools = true): Promise<ValidationDetail[]> {
  const problems: ValidationDetail[] = [];
  const fail = (loc: (string | number)[], msg: string) => problems.push({ loc: ['body', ...loc], msg, type: 'value_error' });
  const seen = new Map<string, number>();
  playbook.collect.forEach((field, i) => {
    const key = field.name.toLowerCase();
    if (seen.has(key)) fail(['collect', i, 'name'], `Also the name of collect[${seen.get(key)}]`);
    else seen.set(key, i);
    if (field.type === 'enum' && !field.values) fail(['collect', i, 'values'], 'An enum value needs its values');
    if (field.type !== 'enum' && field.values) fail(['collect', i, 'values'], `A ${field.type} value has no list of values`);
    if (field.values && new Set(field.values).size !== field.values.length) fail(['collect', i, 'values'], 'Values must be distinct');
  });
  // An update that leaves the tools alone is not refused for one disabled since: the call skips it (call-playbooks.ts).
  const ids = checkTools ? [...new Set(playbook.tool_ids)] : [];
  const rows = ids.length ? await db.tool.findMany({ where: { organizationId, id: { in: ids } }, select: { id: true, enabled: true } }) : [];
  if (checkTools)
    playbook.tool_ids.forEach((id, i) => {
      const row = rows.find((r) => r.id === id);
      if (!row) fail(['tool_ids', i], `Tool ${id} does not exist`);
      else if (!row.enabled) fail(['tool_ids', i], `Tool ${id} is disabled`);
    });
  return problems;
}

function storable(playbook: PlaybookCreateIn) {
  const { name, description, enabled, content, tool_ids, goal, instructions, examples, collect, mode } = playbook;
  const config: StoredPlaybookConfig = { goal, instructions, examples, collect, mode };
  return { columns: { name, description, enabled, content, config: config as unknown as Prisma.InputJsonValue }, toolIds: [...new Set(tool_ids)] };
}

function nameTaken(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';
}

const taken = (name: string) => new AppError('conflict', `A playbook named ${name} exists in this organisation`, { name });

async function findRow(db: Db, organizationId: number, id: number): Promise<PlaybookRow> {
  const row = await db.playbook.findFirst({ where: { id, organizationId }, include: withTools });
  if (!row) throw notFound('Playbook');
  return row;
}

export async function createPlaybook(db: Db, organizationId: number, input: PlaybookCreateIn): Promise<PlaybookOut> {
  const problems = await problemsOf(db, organizationId, input);
  if (problems.length > 0) throw new ValidationFailed(problems);
  const { columns, toolIds } = storable(input);
  try {
    const row = await db.playbook.create({
      data: { organizationId, ...columns, tools: { create: toolIds.map((toolId, position) => ({ toolId, position })) } },
      include: withTools,
    });
    return toApi(row);
  } catch (error) {
    if (nameTaken(error)) throw taken(input.name);
    throw error;
  }
}

export async function getPlaybook(db: Db, organizationId: number, id: number): Promise<PlaybookOut> {
  return toApi(await findRow(db, organizationId, id));
}

export async function listPlaybooks(db: Db, organizationId: number, page: number, perPage: number) {
  const [rows, total] = await Promise.all([
    db.playbook.findMany({ where: { organizationId }, orderBy: { id: 'desc' }, skip: (page - 1) * perPage, take: perPage, include: withTools }),
    db.playbook.count({ where: { organizationId } }),
  ]);
  return { data: rows.map(toApi), pagination: paginationOf(page, perPage, total) };
}

export async function updatePlaybook(db: PrismaClient, organizationId: number, id: number, patch: PlaybookUpdateIn): Promise<PlaybookOut> {
  const current = toApi(await findRow(db, organizationId, id));
  const { id: _id, created_at: _c, updated_at: _u, ...fields } = current;
  const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
  const merged = PlaybookCreate.safeParse({ ...fields, ...defined });
  if (!merged.success) {
    throw new ValidationFailed(
      merged.error.issues.map((issue) => ({
        loc: ['body', ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
        msg: issue.message,
        type: 'value_error',
      })),
    );
  }
  const problems = await problemsOf(db, organizationId, merged.data, patch.tool_ids !== undefined);
  if (problems.length > 0) throw new ValidationFailed(problems);
  const { columns, toolIds } = storable(merged.data);
  try {
    const row = await db.$transaction(async (tx) => {
      // The organisation is in the filter: an id of another organisation's playbook updates nothing.
      const { count } = await tx.playbook.updateMany({ where: { id, organizationId }, data: columns });
      if (count === 0) throw notFound('Playbook');
      if (patch.tool_ids !== undefined) {
        await tx.playbookTool.deleteMany({ where: { playbookId: id } });
        await tx.playbookTool.createMany({ data: toolIds.map((toolId, position) => ({ playbookId: id, toolId, position })) });
      }
      return tx.playbook.findUniqueOrThrow({ where: { id }, include: withTools });
    });
    return toApi(row);
  } catch (error) {
    if (nameTaken(error)) throw taken(merged.data.name);
    throw error;
  }
}

/** Deletes the playbook; assistants it was attached to no longer take it (their links cascade). */
export async function deletePlaybook(db: Db, organizationId: number, id: number): Promise<void> {
  const { count } = await db.playbook.deleteMany({ where: { id, organizationId } });
  if (count === 0) throw notFound('Playbook');
}
