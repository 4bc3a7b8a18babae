import { DateTime } from 'luxon';
import type { Db } from '../../prisma/client.js';
import { additive, METRICS, measuresOf, rowsOf, type Aggregation, type MetricDef, type Measure } from './metrics.js';
import { bucketsOf, resolvePeriod, type ResolvedPeriod } from './period.js';
import { DIMENSIONS, OUTCOME_PREFIX, TIME_BUCKETS, type ChartFilters, type ChartQuery, type ChartResult, type Dimension, type TimeBucket } from './schemas.js';
import { labelsOf } from './labels.js';

// Runs a chart's query: one SQL statement over the organisation's calls in the period (and their assistant turns for
// latency), grouped by GROUPING SETS so that the points, each series' total and the overall total come from one scan
// of the `(organization_id, created_at)` index range. Values are computed in Postgres (sums, averages and
// percentile_cont), never in memory.

export interface QueryContext {
  chartId?: number | null;
  name?: string | null;
  /** The clock presets are read against. */
  now?: Date;
  /** Where a period whose end is not after its start is reported in a 422 (`body.period.to`, `query.to`). */
  periodToLoc?: (string | number)[];
}

type Row = Record<string, unknown> & { calls: number };

/** A group-by as SQL: a call column, a bucket of its creation in the time zone, or a field of the analysis. */
interface Group {
  name: string;
  sql: string;
  time?: TimeBucket;
}

const COLUMNS: Record<Dimension, string> = {
  assistant: 'c.assistant_id',
  campaign: 'c.campaign_id',
  direction: 'c.direction',
  status: 'c.status',
  end_reason: 'c.end_reason',
  phone_number: 'c.phone_number_id',
  transport: 'c.transport',
};

class Params {
  readonly values: unknown[] = [];
  add(value: unknown, cast: string): string {
    this.values.push(value);
    return `$${this.values.length}::${cast}`;
  }
}

function filterSql(f: ChartFilters, params: Params): string[] {
  const where: string[] = [];
  const anyOf = (column: string, values: readonly unknown[] | undefined, cast: string) => {
    if (values && values.length > 0) where.push(`${column} = ANY(${params.add(values, cast)})`);
  };
  anyOf('c.status', f.status, 'text[]');
  anyOf('c.direction', f.direction, 'text[]');
  anyOf('c.transport', f.transport, 'text[]');
  anyOf('c.end_reason', f.end_reason, 'text[]');
  anyOf('c.assistant_id', f.assistant_id, 'int[]');
  anyOf('c.contact_id', f.contact_id, 'int[]');
  anyOf('c.campaign_id', f.campaign_id, 'int[]');
  if (f.phone_number && f.phone_number.length > 0) {
    const numbers = params.add(f.phone_number, 'text[]');
    where.push(`(c.from_number = ANY(${numbers}) OR c.to_number = ANY(${numbers}))`);
  }
  return where;
}

function groupsOf(q: ChartQuery, metric: MetricDef, params: Params, tzName: string): Group[] {
  const names = [...q.group_by];
  if (metric.implicitGroup === 'end_reason' && !names.includes('end_reason')) names.push('end_reason');
  if (metric.implicitGroup === 'outcome' && !names.includes(`${OUTCOME_PREFIX}${q.field}`)) names.push(`${OUTCOME_PREFIX}${q.field}`);
  return names.map((name): Group => {
    if ((TIME_BUCKETS as readonly string[]).includes(name)) return { name, sql: `date_trunc('${name}', c.created_at, ${params.add(tzName, 'text')})`, time: name as TimeBucket };
    if ((DIMENSIONS as readonly string[]).includes(name)) return { name, sql: COLUMNS[name as Dimension] };
    return { name, sql: `(c.outcomes #>> ${params.add(name.slice(OUTCOME_PREFIX.length).split('.'), 'text[]')})` };
  });
}

function statementOf(metric: MetricDef, measures: Measure[], groups: Group[], where: string[]): string {
  const others = groups.filter((g) => !g.time);
  const sets = new Map<string, Group[]>();
  for (const set of [groups, others, []]) sets.set(set.map((g) => g.name).join(','), set);
  const select = [
    ...groups.map((g, i) => `${g.sql} AS d${i}`),
    ...groups.map((g, i) => `GROUPING(${g.sql}) AS g${i}`),
    `${metric.turns ? 'count(DISTINCT c.id)' : 'count(*)'}::int AS calls`,
    ...measures.map((m, i) => `${m.sql} AS m${i}`),
  ];
  const groupBy = groups.length === 0 ? '' : `GROUP BY GROUPING SETS (${[...sets.values()].map((s) => `(${s.map((g) => g.sql).join(', ')})`).join(', ')})`;
  const from = metric.turns ? 'calls c JOIN call_turns t ON t.call_id = c.id' : 'calls c';
  return `SELECT ${select.join(', ')} FROM ${from} WHERE ${where.join(' AND ')} ${groupBy}`;
}

export async function runChartQuery(db: Db, organizationId: number, q: ChartQuery, context: QueryContext = {}): Promise<ChartResult> {
  const metric: MetricDef = METRICS[q.metric];
  const aggregation: Aggregation = q.aggregation ?? metric.aggregations[0]!;
  const tzName = q.timezone;
  const period = resolvePeriod(q.period, tzName, context.now ?? new Date(), context.periodToLoc ?? ['body', 'period', 'to']);
  const params = new Params();
  const org = params.add(organizationId, 'int');
  const from = params.add(period.from.toJSDate(), 'timestamptz');
  const to = params.add(period.to.toJSDate(), 'timestamptz');
  // Parameters are added only where the statement reads them: Postgres cannot type one it never sees.
  const groups = groupsOf(q, metric, params, tzName);
  const field = metric.needsField && q.field ? params.add(q.field.split('.'), 'text[]') : 'NULL';
  const time = groups.find((g) => g.time);
  const buckets = time ? bucketsOf(period, time.time!, ['body', 'group_by']) : null;
  const measures = measuresOf(metric, aggregation, field);
  const only = rowsOf(metric, field);
  const where = [`c.organization_id = ${org}`, `c.created_at >= ${from}`, `c.created_at < ${to}`, ...filterSql(q.filters, params), ...(only ? [only] : [])];
  const rows = await db.$queryRawUnsafe<Row[]>(statementOf(metric, measures, groups, where), ...params.values);
  return shape(db, organizationId, { q, metric, aggregation, period, groups, measures, buckets, rows, context });
}

interface Shaping {
  q: ChartQuery;
  metric: MetricDef;
  aggregation: Aggregation;
  period: ResolvedPeriod;
  groups: Group[];
  measures: Measure[];
  buckets: DateTime[] | null;
  rows: Row[];
  context: QueryContext;
}

type Key = Record<string, string | number | null>;

async function shape(db: Db, organizationId: number, s: Shaping): Promise<ChartResult> {
  const { groups, measures, rows, q } = s;
  const timeIndex = groups.findIndex((g) => g.time);
  const keyed = groups.map((_, i) => i).filter((i) => i !== timeIndex);
  const present = (row: Row, i: number) => Number(row[`g${i}`] ?? 0) === 0;
  const keyOf = (row: Row): Key => Object.fromEntries(keyed.map((i) => [groups[i]!.name, (row[`d${i}`] as string | number | null) ?? null]));
  const idOf = (row: Row) => JSON.stringify(keyed.map((i) => row[`d${i}`] ?? null));
  const overall = rows.find((r) => groups.every((_, i) => !present(r, i)));
  // A series per value of the group-bys other than time: its total is the row grouped by them alone.
  const seriesRows = keyed.length === 0 ? (overall ? [overall] : []) : rows.filter((r) => keyed.every((i) => present(r, i)) && (timeIndex < 0 || !present(r, timeIndex)));
  const points = new Map<string, Map<number, Row>>();
  if (timeIndex >= 0) {
    for (const r of rows.filter((row) => groups.every((_, i) => present(row, i)))) {
      const id = idOf(r);
      if (!points.has(id)) points.set(id, new Map());
      points.get(id)!.set((r[`d${timeIndex}`] as Date).getTime(), r);
    }
  }
  const sumUp = additive(s.aggregation);
  const empty = sumUp ? 0 : null;
  const ranked = [...seriesRows].sort((a, b) => (num(b.m0) ?? -Infinity) - (num(a.m0) ?? -Infinity));
  const shown = ranked.slice(0, q.limit);
  const rest = ranked.slice(q.limit);

  const labels = await labelsOf(db, organizationId, shown.map(keyOf));
  const several = measures.length > 1;
  const labelOf = (key: Key, measure: string) => [...Object.entries(key).map(([name, value]) => labels(name, value)), ...(several ? [measure] : [])].join(' · ') || q.metric;
  const valueAt = (from: Row[], mi: number, t: number) => {
    const found = from.map((r) => points.get(idOf(r))?.get(t)).filter((r): r is Row => r !== undefined);
    return found.length === 0 ? empty : from.length === 1 ? num(found[0]![`m${mi}`]) : found.reduce((acc, r) => acc + (num(r[`m${mi}`]) ?? 0), 0);
  };
  const seriesOf = (from: Row[], key: Key, mi: number, total: number | null, label: string) => ({
    key: several ? { ...key, measure: measures[mi]!.name } : key,
    label,
    points: s.buckets ? s.buckets.map((b) => ({ t: b.toISO()!, value: valueAt(from, mi, b.toMillis()) })) : [{ t: null, value: total }],
    total,
  });
  const series: ChartResult['series'] = shown.flatMap((row) => measures.map((m, mi) => seriesOf([row], keyOf(row), mi, num(row[`m${mi}`]), labelOf(keyOf(row), m.name))));
  // Series past `limit` are summed into `other` where the measure adds up; an average of the rest would mean nothing.
  if (rest.length > 0 && sumUp) {
    const key: Key = Object.fromEntries(keyed.map((i) => [groups[i]!.name, 'other']));
    for (let mi = 0; mi < measures.length; mi++) {
      const total = rest.reduce((acc, r) => acc + (num(r[`m${mi}`]) ?? 0), 0);
      series.push(seriesOf(rest, key, mi, total, several ? `other · ${measures[mi]!.name}` : 'other'));
    }
  }

  const values = Object.fromEntries(measures.map((m, mi) => [m.name, overall ? num(overall[`m${mi}`]) : empty]));
  const measured = Object.values(values);
  return {
    chart_id: s.context.chartId ?? null,
    name: s.context.name ?? null,
    metric: q.metric,
    aggregation: s.aggregation,
    field: q.field ?? null,
    unit: s.metric.unit,
    currency: s.metric.currency ?? null,
    period: { preset: s.period.preset, from: s.period.from.toISO()!, to: s.period.to.toISO()! },
    timezone: q.timezone,
    granularity: groups[timeIndex]?.time ?? null,
    group_by: q.group_by,
    series,
    totals: {
      calls: overall?.calls ?? 0,
      value: measured.length === 1 ? measured[0]! : sumUp ? measured.reduce<number>((a, b) => a + (b ?? 0), 0) : null,
      measures: values,
    },
    truncated: rest.length > 0,
    generated_at: new Date().toISOString(),
  };
}

function num(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}
