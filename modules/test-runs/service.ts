import type { Db, PrismaClient } from '../../prisma/client.js';
import type { Prisma, TestRun } from '../../prisma/generated/client.js';
import { AppError, notFound, ValidationFailed, type ValidationDetail } from '../../lib/errors.js';
import { paginationOf } from '../../lib/pagination.js';
import { TEST_RUN_CANCEL_CHANNEL, TEST_RUN_NOTIFY_CHANNEL } from './queue.js';
import {
  MAX_ACTIVE_RUNS,
  type PlaybookTestRunCreateIn,
  type RepetitionOut,
  type TestRunCreateIn,
  type TestRunOut,
  type TestRunStatus,
  type TotalsOut,
} from './schemas.js';

// Test runs as the API sees them: queued here (a row and a NOTIFY, in one transaction), run by an agent worker
// (agent/test-runs/), read and cancelled here. Every read and write is filtered by the organisation.

type TestRunRow = Omit<TestRun, 'organizationId' | 'leaseExpiresAt' | 'leaseToken'>;

function toApi(row: TestRunRow): TestRunOut {
  return {
    id: row.id,
    assistant_id: row.assistantId,
    playbook_id: row.playbookId,
    assistant_version: row.assistantVersion,
    draft: row.draft,
    status: row.status as TestRunStatus,
    request: row.request as Record<string, unknown>,
    results: (row.results ?? []) as RepetitionOut[],
    pass_rate: row.passRate,
    totals: (row.usage ?? null) as TotalsOut | null,
    error: row.error,
    attempts: row.attempts,
    created_at: row.createdAt.toISOString(),
    started_at: row.startedAt?.toISOString() ?? null,
    completed_at: row.completedAt?.toISOString() ?? null,
    updated_at: row.updatedAt.toISOString(),
  };
}

/**
 * What a run of this assistant (inside this playbook) can be offered: the enabled tools' names, and the names of its
 * mcp tools, whose server's functions are `<tool>_<server tool>`.
 */
async function offeredTools(db: Db, organizationId: number, assistantId: number, playbookId: number | null) {
  const tools = await db.tool.findMany({
    where: {
      organizationId,
      enabled: true,
      OR: [
        { assistants: { some: { assistantId } } },
        { playbooks: { some: { playbook: { assistants: { some: { assistantId } } } } } },
        ...(playbookId === null ? [] : [{ playbooks: { some: { playbookId } } }]),
      ],
    },
    select: { name: true, type: true },
  });
  const names = new Set(tools.map((t) => t.name));
  const servers = tools.filter((t) => t.type === 'mcp').map((t) => `${t.name}_`);
  return (name: string) => names.has(name) || servers.some((prefix) => name.startsWith(prefix));
}

/** Refuses a contact of another organisation, and mocks or real-tool names that name no tool the run can offer. */
async function checkReferences(db: Db, organizationId: number, assistantId: number, playbookId: number | null, input: TestRunCreateIn): Promise<void> {
  const problems: ValidationDetail[] = [];
  if (input.contact_id !== null && (await db.contact.count({ where: { id: input.contact_id, organizationId } })) === 0) {
    problems.push({ loc: ['body', 'contact_id'], msg: 'No such contact', type: 'not_found' });
  }
  const named = [
    ...Object.keys(input.tool_mocks).map((name) => ({ name, loc: ['body', 'tool_mocks', name] })),
    ...(Array.isArray(input.use_real_tools) ? input.use_real_tools.map((name, i) => ({ name, loc: ['body', 'use_real_tools', i] })) : []),
  ];
  if (named.length > 0) {
    const isOffered = await offeredTools(db, organizationId, assistantId, playbookId);
    for (const { name, loc } of named) {
      if (!isOffered(name))
        problems.push({
          loc,
          msg: `No enabled tool named ${name} is offered to this assistant${playbookId === null ? '' : ' or playbook'}`,
          type: 'not_found',
        });
    }
  }
  if (problems.length > 0) throw new ValidationFailed(problems);
}

async function queue(
  prisma: PrismaClient,
  organizationId: number,
  assistantId: number,
  playbookId: number | null,
  request: TestRunCreateIn,
): Promise<TestRunOut> {
  const row = await prisma.$transaction(async (tx) => {
    // Counted under a lock of the organisation's row, so two requests at once cannot both take the last place.
    await tx.$executeRaw`SELECT 1 FROM organizations WHERE id = ${organizationId} FOR UPDATE`;
    const active = await tx.testRun.count({ where: { organizationId, status: { in: ['queued', 'running'] } } });
    if (active >= MAX_ACTIVE_RUNS) {
      throw new AppError(
        'limit_reached',
        `An organisation has at most ${MAX_ACTIVE_RUNS} test runs queued or running: wait for some to finish, or cancel them`,
        { limit: MAX_ACTIVE_RUNS },
      );
    }
    const created = await tx.testRun.create({ data: { organizationId, assistantId, playbookId, request: request as unknown as Prisma.InputJsonValue } });
    // Delivered at commit: a worker woken by it finds the row.
    await tx.$executeRaw`SELECT pg_notify(${TEST_RUN_NOTIFY_CHANNEL}, ${String(created.id)})`;
    return created;
  });
  return toApi(row);
}

export async function createAssistantTestRun(prisma: PrismaClient, organizationId: number, assistantId: number, input: TestRunCreateIn): Promise<TestRunOut> {
  if ((await prisma.assistant.count({ where: { id: assistantId, organizationId } })) === 0) throw notFound('Assistant');
  await checkReferences(prisma, organizationId, assistantId, null, input);
  return queue(prisma, organizationId, assistantId, null, input);
}

/**
 * A playbook runs inside an assistant: the one named, or by default the first assistant (lowest id) it is assigned to.
 * The assistant need not have the playbook assigned: the run adds it, and starts the conversation inside it.
 */
export async function createPlaybookTestRun(
  prisma: PrismaClient,
  organizationId: number,
  playbookId: number,
  input: PlaybookTestRunCreateIn,
): Promise<TestRunOut> {
  if ((await prisma.playbook.count({ where: { id: playbookId, organizationId } })) === 0) throw notFound('Playbook');
  const { assistant_id: named, ...request } = input;
  let assistantId = named;
  if (assistantId === null) {
    const first = await prisma.assistantPlaybook.findFirst({
      where: { playbookId, assistant: { organizationId } },
      orderBy: { assistantId: 'asc' },
      select: { assistantId: true },
    });
    if (!first)
      throw new ValidationFailed([{ loc: ['body', 'assistant_id'], msg: 'No assistant uses this playbook: name the assistant to run it in', type: 'missing' }]);
    assistantId = first.assistantId;
  } else if ((await prisma.assistant.count({ where: { id: assistantId, organizationId } })) === 0) {
    throw new ValidationFailed([{ loc: ['body', 'assistant_id'], msg: 'No such assistant', type: 'not_found' }]);
  }
  await checkReferences(prisma, organizationId, assistantId, playbookId, request);
  return queue(prisma, organizationId, assistantId, playbookId, request);
}

export interface TestRunFilters {
  assistant_id?: number | undefined;
  playbook_id?: number | undefined;
  status?: TestRunStatus[] | undefined;
}

export async function listTestRuns(db: Db, organizationId: number, filters: TestRunFilters, page: number, perPage: number) {
  const where: Prisma.TestRunWhereInput = {
    organizationId,
    ...(filters.assistant_id !== undefined ? { assistantId: filters.assistant_id } : {}),
    ...(filters.playbook_id !== undefined ? { playbookId: filters.playbook_id } : {}),
    ...(filters.status && filters.status.length > 0 ? { status: { in: filters.status } } : {}),
  };
  const [rows, total] = await Promise.all([
    db.testRun.findMany({ where, orderBy: { id: 'desc' }, skip: (page - 1) * perPage, take: perPage }),
    db.testRun.count({ where }),
  ]);
  return { data: rows.map(toApi), pagination: paginationOf(page, perPage, total) };
}

export async function getTestRun(db: Db, organizationId: number, id: number): Promise<TestRunOut> {
  const row = await db.testRun.findFirst({ where: { id, organizationId } });
  if (!row) throw notFound('Test run');
  return toApi(row);
}

/**
 * Cancels a queued or running run: it is never claimed again, and the worker running it hears of it at once (NOTIFY)
 * and stops; its lease token is cleared, so nothing it writes afterwards lands. A finished run answers 409.
 */
export async function cancelTestRun(prisma: PrismaClient, organizationId: number, id: number): Promise<TestRunOut> {
  return prisma.$transaction(async (tx) => {
    const { count } = await tx.testRun.updateMany({
      where: { id, organizationId, status: { in: ['queued', 'running'] } },
      data: { status: 'cancelled', error: 'cancelled by request', completedAt: new Date(), leaseToken: null, leaseExpiresAt: null },
    });
    const row = await tx.testRun.findFirst({ where: { id, organizationId } });
    if (!row) throw notFound('Test run');
    if (count === 0) {
      throw new AppError('conflict', `The test run has finished (${row.status}): there is nothing to cancel`, { status: row.status });
    }
    await tx.$executeRaw`SELECT pg_notify(${TEST_RUN_CANCEL_CHANNEL}, ${String(id)})`;
    return toApi(row);
  });
}
