import type { Db, PrismaClient } from '../../prisma/client.js';
import { AppError, notFound } from '../../lib/errors.js';
import { ChartQuery, ChartWrite, type ChartResult, type PeriodOverride } from './schemas.js';
import { runChartQuery } from './query.js';
import { DEFAULT_CHARTS } from './default-charts.js';
import { METRICS } from './metrics.js';

// Saved charts: an organisation's queries with a name and how they are drawn. Every read and write is filtered by
// the organisation: another organisation's chart is "not found". Every organisation starts with the default set.

/** Charts an organisation may keep; a dashboard shows a few dozen. */
export const MAX_CHARTS = 500;

type ChartRow = { id: number; name: string; definition: unknown; createdAt: Date; updatedAt: Date };

function definitionOf(write: ChartWrite) {
  const { name: _name, ...definition } = write;
  return definition;
}

/** A stored definition, read back through the schema so its defaults apply. */
function writeOf(row: ChartRow): ChartWrite {
  return ChartWrite.parse({ ...(row.definition as object), name: row.name });
}

function chartRecord(row: ChartRow) {
  const w = writeOf(row);
  return {
    id: row.id,
    name: w.name,
    chart_type: w.chart_type,
    metric: w.metric,
    aggregation: w.aggregation ?? METRICS[w.metric].aggregations[0],
    field: w.field ?? null,
    group_by: w.group_by,
    filters: w.filters,
    period: w.period,
    timezone: w.timezone,
    limit: w.limit,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The default charts, made once per organisation: one it deletes stays deleted. */
export async function ensureDefaultCharts(prisma: PrismaClient, organizationId: number): Promise<void> {
  const settings = await prisma.analyticsSettings.findUnique({ where: { organizationId }, select: { defaultChartsCreatedAt: true } });
  if (settings?.defaultChartsCreatedAt) return;
  await prisma.$transaction(async (tx) => {
    // Claimed by a compare-and-set, so two first requests at once make the set once.
    await tx.analyticsSettings.upsert({ where: { organizationId }, create: { organizationId }, update: {} });
    const claimed = await tx.analyticsSettings.updateMany({
      where: { organizationId, defaultChartsCreatedAt: null },
      data: { defaultChartsCreatedAt: new Date() },
    });
    if (claimed.count === 0) return;
    await tx.analyticsChart.createMany({
      data: DEFAULT_CHARTS.map((c) => ({ organizationId, name: c.name, definition: definitionOf(ChartWrite.parse(c)) as object })),
    });
  });
}

export async function listCharts(prisma: PrismaClient, organizationId: number, page: number, perPage: number) {
  await ensureDefaultCharts(prisma, organizationId);
  const where = { organizationId };
  const [rows, total] = await Promise.all([
    prisma.analyticsChart.findMany({ where, orderBy: { id: 'asc' }, skip: (page - 1) * perPage, take: perPage }),
    prisma.analyticsChart.count({ where }),
  ]);
  return { data: rows.map(chartRecord), total };
}

async function findChart(db: Db, organizationId: number, id: number): Promise<ChartRow> {
  const row = await db.analyticsChart.findFirst({ where: { id, organizationId } });
  if (!row) throw notFound('Chart');
  return row;
}

export async function getChart(db: Db, organizationId: number, id: number) {
  return chartRecord(await findChart(db, organizationId, id));
}

export async function createChart(prisma: PrismaClient, organizationId: number, write: ChartWrite) {
  await ensureDefaultCharts(prisma, organizationId);
  if ((await prisma.analyticsChart.count({ where: { organizationId } })) >= MAX_CHARTS) {
    throw new AppError('limit_reached', `An organisation keeps at most ${MAX_CHARTS} charts`);
  }
  const row = await prisma.analyticsChart.create({ data: { organizationId, name: write.name, definition: definitionOf(write) as object } });
  return chartRecord(row);
}

export async function replaceChart(db: Db, organizationId: number, id: number, write: ChartWrite) {
  await findChart(db, organizationId, id);
  const row = await db.analyticsChart.update({ where: { id }, data: { name: write.name, definition: definitionOf(write) as object } });
  return chartRecord(row);
}

export async function deleteChart(db: Db, organizationId: number, id: number): Promise<void> {
  const deleted = await db.analyticsChart.deleteMany({ where: { id, organizationId } });
  if (deleted.count === 0) throw notFound('Chart');
}

/** Runs a saved chart, over its own period and time zone or those of the override. */
export async function runChart(
  db: Db,
  organizationId: number,
  id: number,
  override: PeriodOverride = {},
  periodToLoc: (string | number)[] = ['body', 'period', 'to'],
): Promise<ChartResult> {
  const row = await findChart(db, organizationId, id);
  const { name, chart_type: _type, ...saved } = writeOf(row);
  const query = ChartQuery.parse({
    ...saved,
    ...(override.period ? { period: override.period } : {}),
    ...(override.timezone ? { timezone: override.timezone } : {}),
  });
  return runChartQuery(db, organizationId, query, { chartId: row.id, name, periodToLoc });
}
