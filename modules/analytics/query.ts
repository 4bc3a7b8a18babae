import { DateTime } from 'luxon';
import type { Db } from '../../prisma/client.js';
import { additive, METRICS, measuresOf, rowsOf, type Aggregation, type MetricDef, type Measure } from './metrics.js';
import { bucketsOf, resolvePeriod, type ResolvedPeriod } from './period.js';
import { DIMENSIONS, OUTCOME_PREFIX, TIME_BUCKETS, type ChartFilters, type ChartQuery, type ChartResult, type Dimension, type TimeBucket } from './schemas.js';
import { labelsOf } from './labels.js';
import { rolledMeasures, ROLLED_OUTCOME, ROLLED_OUTCOME_COLUMN, ROLLUP_COLUMNS } from './rollups.js';
import { IN_PROGRESS, NOT_STARTED } from '../calls/statuses.js';

// Runs a chart's query as one SQL statement, grouped by GROUPING SETS so that the points, each series' total and the
// overall total come from one scan. It reads the hourly rollups when every part of the query is in them
// (rollups.ts), and otherwise the organisation's calls in the period through the `(organization_id, created_at)` index
// (and their assistant turns for latency). Values are computed in Postgres (sums, ratios, percentile_cont).

export interface QueryContext {
  chartId?: number | null;
  name?: string | null;
  /** The clock presets are read against. */
  now?: Date;
  /** Where a period whose end is not after its start is reported in a 422 (`body.period.to`, `query.to`). */
  periodToLoc?: (string | number)[];
  /** `calls` reads the calls even where the rollups could answer (to compare the two). */
  source?: 'calls';
}

type Row = Record<string, unknown> & { calls: number };

/** A group-by as SQL: a call column, a bucket of its creation in the time zone, or a field of the analysis. */
interface Group {
  name: string;
  sql: string;
  time?: TimeBucket;
}

/** Where a query reads: the calls (`c`, with turns `t` for latency) or the rollups (`r`). */
interface Source {
  from: string;
  /** When the rows' calls were created: the period and time buckets are read on it. */
  created: string;
  calls: string;
  columns: Record<Dimension, string>;
  /** Filters by name; contact and phone number filters only the calls have. */
  filters: Partial<Record<keyof ChartFilters, string>>;
  measures: Measure[];
  only?: string | undefined;
  /** Rollup rows of calls that have moved on stay, at 0: they are no group. */
  having?: string;
  /** The analysis field the source keeps as a column (the rollups' sentiment). */
  outcome?: string;
}

const CALL_COLUMNS: Record<Dimension, string> = {
  assistant: 'c.assistant_id',
  campaign: 'c.campaign_id',
  direction: 'c.direction',
  status: 'c.status',
  end_reason: 'c.end_reason',
  phone_number: 'c.phone_number_id',
  transport: 'c.transport',
};
const CALL_FILTERS = { status: 'c.status', direction: 'c.direction', transport: 'c.transport', end_reason: 'c.end_reason', assistant_id: 'c.assistant_id', contact_id: 'c.contact_id', campaign_id: 'c.campaign_id' };
const ROLLUP_FILTERS = { status: 'r.status', direction: 'r.direction', transport: 'r.transport', end_reason: 'r.end_reason', assistant_id: 'r.assistant_id', campaign_id: 'r.campaign_id' };
const INT_FILTERS: ReadonlyArray<keyof ChartFilters> = ['assistant_id', 'contact_id', 'campaign_id'];

/** The placeholders of the organisation and the period's bounds. */
interface Bounds {
  org: string;
  from: string;
  to: string;
}

/**
 * The rollup rows of the period: those of ended calls, and the same rows made on the spot from the calls still under
 * way (read through the `(organization_id, status, created_at)` index), which add to the rollups only once they end.
 */
function rollupRows({ org, from, to }: Bounds): string {
  const underWay = [...NOT_STARTED, IN_PROGRESS].map((status) => `'${status}'`).join(', ');
  return `(SELECT * FROM call_rollups WHERE organization_id = ${org} AND hour >= ${from} AND hour < ${to}
    UNION ALL
    SELECT x.* FROM calls c, LATERAL call_rollup_row(c, 1) x
    WHERE c.organization_id = ${org} AND c.status IN (${underWay}) AND c.created_at >= ${from} AND c.created_at < ${to}) r`;
}

class Params {
  readonly values: unknown[] = [];
  add(value: unknown, cast: string): string {
    this.values.push(value);
    return `$${this.values.length}::${cast}`;
  }
}

function filterSql(f: ChartFilters, source: Source, params: Params): string[] {
  const where: string[] = [];
  for (const [name, column] of Object.entries(source.filters) as Array<[keyof ChartFilters, string]>) {
    const values = f[name];
    if (values && values.length > 0) where.push(`${column} = ANY(${params.add(values, INT_FILTERS.includes(name) ? 'int[]' : 'text[]')})`);
  }
  if (f.phone_number && f.phone_number.length > 0) {
    const numbers = params.add(f.phone_number, 'text[]');
    where.push(`(c.from_number = ANY(${numbers}) OR c.to_number = ANY(${numbers}))`);
  }
  return where;
}

function groupsOf(q: ChartQuery, metric: MetricDef, source: Source, params: Params, tzName: string): Group[] {
  const names = [...q.group_by];
  if (metric.implicitGroup === 'end_reason' && !names.includes('end_reason')) names.push('end_reason');
  if (metric.implicitGroup === 'outcome' && !names.includes(`${OUTCOME_PREFIX}${q.field}`)) names.push(`${OUTCOME_PREFIX}${q.field}`);
  return names.map((name): Group => {
    if ((TIME_BUCKETS as readonly string[]).includes(name)) return { name, sql: `date_trunc('${name}', ${source.created}, ${params.add(tzName, 'text')})`, time: name as TimeBucket };
    if ((DIMENSIONS as readonly string[]).includes(name)) return { name, sql: source.columns[name as Dimension] };
    if (source.outcome && name === ROLLED_OUTCOME) return { name, sql: source.outcome };
    return { name, sql: `(c.outcomes #>> ${params.add(name.slice(OUTCOME_PREFIX.length).split('.'), 'text[]')})` };
  });
}

function statementOf(source: Source, groups: Group[], where: string[]): string {
  const others = groups.filter((g) => !g.time);
  const sets = new Map<string, Group[]>();
  for (const set of [groups, others, []]) sets.set(set.map((g) => g.name).join(','), set);
  const select = [
    ...groups.map((g, i) => `${g.sql} AS d${i}`),
    ...groups.map((g, i) => `GROUPING(${g.sql}) AS g${i}`),
    `${source.calls} AS calls`,
    ...source.measures.map((m, i) => `${m.sql} AS m${i}`),
  ];
  const groupBy = groups.length === 0 ? '' : `GROUP BY GROUPING SETS (${[...sets.values()].map((s) => `(${s.map((g) => g.sql).join(', ')})`).join(', ')})`;
  return `SELECT ${select.join(', ')} FROM ${source.from} WHERE ${where.join(' AND ')} ${groupBy} ${source.having ? `HAVING ${source.having}` : ''}`;
}

/** The rollups when they hold everything the query needs, else the calls. */
function sourceOf(q: ChartQuery, metric: MetricDef, aggregation: Aggregation, period: ResolvedPeriod, bounds: Bounds, field: () => string, context: QueryContext): Source {
  const rolled = context.source === 'calls' ? undefined : rolledMeasures(q, aggregation, period);
  if (rolled) {
    return {
      from: rollupRows(bounds),
      created: 'r.hour',
      calls: 'coalesce(sum(r.calls), 0)::int',
      columns: ROLLUP_COLUMNS,
      filters: ROLLUP_FILTERS,
      measures: rolled,
      only: metric.implicitGroup === 'end_reason' ? "r.end_reason <> ''" : metric.implicitGroup === 'outcome' ? "r.sentiment <> ''" : undefined,
      having: 'sum(r.calls) <> 0',
      outcome: ROLLED_OUTCOME_COLUMN,
    };
  }
  const path = metric.needsField ? field() : 'NULL';
  return {
    from: metric.turns ? 'calls c JOIN call_turns t ON t.call_id = c.id' : 'calls c',
    created: 'c.created_at',
    calls: `${metric.turns ? 'count(DISTINCT c.id)' : 'count(*)'}::int`,
    columns: CALL_COLUMNS,
    filters: CALL_FILTERS,
    measures: measuresOf(metric, aggregation, path),
    only: rowsOf(metric, path),
  };
}

export async function runChartQuery(db: Db, organizationId: number, q: ChartQuery, context: QueryContext = {}): Promise<ChartResult> {
  const metric: MetricDef = METRICS[q.metric];
  const aggregation: Aggregation = q.aggregation ?? metric.aggregations[0]!;
  const tzName = q.timezone;
  const period = resolvePeriod(q.period, tzName, context.now ?? new Date(), context.periodToLoc ?? ['body', 'period', 'to']);
  // Parameters are added only where the statement reads them: Postgres cannot type one it never sees.
  const params = new Params();
  const org = params.add(organizationId, 'int');
  const from = params.add(period.from.toJSDate(), 'timestamptz');
  const to = params.add(period.to.toJSDate(), 'timestamptz');
  const source = sourceOf(q, metric, aggregation, period, { org, from, to }, () => params.add(q.field!.split('.'), 'text[]'), context);
  const alias = source.created.split('.')[0];
  const groups = groupsOf(q, metric, source, params, tzName);
  const time = groups.find((g) => g.time);
  const buckets = time ? bucketsOf(period, time.time!, ['body', 'group_by']) : null;
  const where = [`${alias}.organization_id = ${org}`, `${source.created} >= ${from}`, `${source.created} < ${to}`, ...filterSql(q.filters, source, params), ...(source.only ? [source.only] : [])];
  const rows = await db.$queryRawUnsafe<Row[]>(statementOf(source, groups, where), ...params.values);
  return shape(db, organizationId, { q, metric, aggregation, period, groups, measures: source.measures, buckets, rows, context });
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
  // Largest first; equal ones in the order of their values, so that a chart reads the same every time.
  const ranked = [...seriesRows].sort((a, b) => (num(b.m0) ?? -Infinity) - (num(a.m0) ?? -Infinity) || (idOf(a) < idOf(b) ? -1 : idOf(a) > idOf(b) ? 1 : 0));
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
