import type { Db } from '../../prisma/client.js';
import { METRICS, measuresOf, rowsOf, type Aggregation, type MetricDef, type Measure } from './metrics.js';
import { bucketsOf, resolvePeriod, type ResolvedPeriod } from './period.js';
import {
  COLLECTED_PREFIX,
  DIMENSIONS,
  OUTCOME_PREFIX,
  TIME_BUCKETS,
  type ChartFilters,
  type ChartQuery,
  type ChartResult,
  type Dimension,
  type TimeBucket,
} from './schemas.js';
import { shapeResult, type Group, type Row } from './series.js';
import { rolledMeasures, ROLLED_OUTCOME, ROLLED_OUTCOME_COLUMN, ROLLUP_COLUMNS } from './rollups.js';
import {
  countStatement,
  EXACT_BELOW,
  histogramOf,
  histogramRows,
  histogramStatement,
  readsWholeHours,
  RELATIVE_ERROR,
  type Histogram,
  type HistogramBounds,
} from './histograms.js';
import { IN_PROGRESS, NOT_STARTED } from '../calls/index.js';

// Runs a chart's query as one SQL statement, grouped by GROUPING SETS so that the points, each series' total and the
// overall total come from one scan. It reads the hourly rollups when every part of the query is in them
// (rollups.ts), percentiles of duration and latency from the rollups' histograms when the period holds many values
// (histograms.ts), and otherwise the organisation's calls in the period through the `(organization_id, created_at)`
// index (and their assistant turns for latency). Values are computed in Postgres (sums, ratios, percentile_cont).

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
const CALL_FILTERS = {
  status: 'c.status',
  direction: 'c.direction',
  transport: 'c.transport',
  end_reason: 'c.end_reason',
  assistant_id: 'c.assistant_id',
  contact_id: 'c.contact_id',
  campaign_id: 'c.campaign_id',
};
const ROLLUP_FILTERS = {
  status: 'r.status',
  direction: 'r.direction',
  transport: 'r.transport',
  end_reason: 'r.end_reason',
  assistant_id: 'r.assistant_id',
  campaign_id: 'r.campaign_id',
};
const INT_FILTERS: ReadonlyArray<keyof ChartFilters> = ['assistant_id', 'contact_id', 'campaign_id'];

/** The placeholders of the organisation and the period's bounds. */
interface Bounds {
  org: string;
  from: string;
  to: string;
}

/**
 * The rollup rows of the period: those of ended calls (folded, and the deltas still waiting for the folder: the view
 * `call_rollups_current`), and the same rows made on the spot from the calls still under way (read through the
 * `(organization_id, status, created_at)` index), which add to the rollups only once they end.
 */
const UNDER_WAY = [...NOT_STARTED, IN_PROGRESS].map((status) => `'${status}'`).join(', ');

function rollupRows({ org, from, to }: Bounds): string {
  return `(SELECT * FROM call_rollups_current WHERE organization_id = ${org} AND hour >= ${from} AND hour < ${to}
    UNION ALL
    SELECT x.* FROM calls c, LATERAL call_rollup_row(c, 1) x
    WHERE c.organization_id = ${org} AND c.status IN (${UNDER_WAY}) AND c.created_at >= ${from} AND c.created_at < ${to}) r`;
}

/**
 * A value extracted from the call, as jsonb: `collected.<name>`, the value of that name any of the call's playbooks
 * collected; otherwise a path into the post-call analysis (`sentiment`, `fields.plan`).
 */
function fieldValue(field: string, params: Params): string {
  if (field.startsWith(COLLECTED_PREFIX)) {
    // The name is letters, digits and _ (schemas.ts), so it is quoted safely into the path.
    return `jsonb_path_query_first(c.collected_values, ${params.add(`$.*.values."${field.slice(COLLECTED_PREFIX.length)}"`, 'jsonpath')})`;
  }
  return `(c.outcomes #> ${params.add(field.split('.'), 'text[]')})`;
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
    if ((TIME_BUCKETS as readonly string[]).includes(name))
      return { name, sql: `date_trunc('${name}', ${source.created}, ${params.add(tzName, 'text')})`, time: name as TimeBucket };
    if ((DIMENSIONS as readonly string[]).includes(name)) return { name, sql: source.columns[name as Dimension] };
    if (source.outcome && name === ROLLED_OUTCOME) return { name, sql: source.outcome };
    return { name, sql: `(${fieldValue(name.slice(OUTCOME_PREFIX.length), params)} #>> '{}')` };
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

/** Rows with the rollups' columns (`r`): the rollups themselves, or their histograms' entries. */
function rollupSource(metric: MetricDef, from: string, measures: Measure[]): Source {
  return {
    from,
    created: 'r.hour',
    calls: 'coalesce(sum(r.calls), 0)::int',
    columns: ROLLUP_COLUMNS,
    filters: ROLLUP_FILTERS,
    measures,
    only: metric.implicitGroup === 'end_reason' ? "r.end_reason <> ''" : metric.implicitGroup === 'outcome' ? "r.sentiment <> ''" : undefined,
    having: 'sum(r.calls) <> 0',
    outcome: ROLLED_OUTCOME_COLUMN,
  };
}

/** The rollups when they hold everything the query needs, else the calls. */
function sourceOf(
  q: ChartQuery,
  metric: MetricDef,
  aggregation: Aggregation,
  period: ResolvedPeriod,
  bounds: Bounds,
  field: () => string,
  context: QueryContext,
): Source {
  const rolled = context.source === 'calls' ? undefined : rolledMeasures(q, aggregation, period);
  if (rolled) return rollupSource(metric, rollupRows(bounds), rolled);
  return callsSource(metric, aggregation, metric.needsField ? field() : 'NULL');
}

function callsSource(metric: MetricDef, aggregation: Aggregation, path: string): Source {
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

/** The placeholders of the organisation and the period, in parameters of their own: one set per statement. */
function boundsOf(params: Params, organizationId: number, period: ResolvedPeriod): Bounds {
  // Parameters are added only where the statement reads them: Postgres cannot type one it never sees.
  return {
    org: params.add(organizationId, 'int'),
    from: params.add(period.from.toJSDate(), 'timestamptz'),
    to: params.add(period.to.toJSDate(), 'timestamptz'),
  };
}

function whereOf(q: ChartQuery, source: Source, { org, from, to }: Bounds, params: Params): string[] {
  const alias = source.created.split('.')[0];
  return [
    `${alias}.organization_id = ${org}`,
    `${source.created} >= ${from}`,
    `${source.created} < ${to}`,
    ...filterSql(q.filters, source, params),
    ...(source.only ? [source.only] : []),
  ];
}

/**
 * The percentiles from the histograms when the period and filters hold EXACT_BELOW values or more (counted from the
 * histograms' rows first); undefined when they hold fewer, which the calls answer exactly.
 */
async function histogramRowsOf(
  db: Db,
  organizationId: number,
  q: ChartQuery,
  metric: MetricDef,
  period: ResolvedPeriod,
  h: Histogram,
): Promise<{ rows: Row[]; groups: Group[]; measures: Measure[] } | undefined> {
  const whole = readsWholeHours(q, groupsOf(q, metric, rollupSource(metric, '', []), new Params(), q.timezone));
  const statement = (params: Params) => {
    const bounds = boundsOf(params, organizationId, period);
    const histogram: HistogramBounds = { ...bounds, metric: params.add(h.metric, 'text'), underWay: UNDER_WAY, whole };
    const source = rollupSource(metric, histogramRows(histogram), []);
    return { histogram, source, where: () => whereOf(q, source, bounds, params) };
  };
  const counting = new Params();
  const count = statement(counting);
  const [counted] = await db.$queryRawUnsafe<Array<{ n: number }>>(countStatement(count.histogram, count.where()), ...counting.values);
  if (Number(counted?.n ?? 0) < EXACT_BELOW) return undefined;
  const params = new Params();
  const { source, where } = statement(params);
  const groups = groupsOf(q, metric, source, params, q.timezone);
  const rows = await db.$queryRawUnsafe<Row[]>(histogramStatement(h, source.from, groups, where()), ...params.values);
  return { rows, groups, measures: h.percentiles.map(({ name }) => ({ name, sql: '' })) };
}

export async function runChartQuery(db: Db, organizationId: number, q: ChartQuery, context: QueryContext = {}): Promise<ChartResult> {
  const metric: MetricDef = METRICS[q.metric];
  const aggregation: Aggregation = q.aggregation ?? metric.aggregations[0]!;
  const tzName = q.timezone;
  const period = resolvePeriod(q.period, tzName, context.now ?? new Date(), context.periodToLoc ?? ['body', 'period', 'to']);
  const bucketsFor = (groups: Group[]) => {
    const time = groups.find((g) => g.time);
    return time ? bucketsOf(period, time.time!, ['body', 'group_by']) : null;
  };
  const histogram = context.source === 'calls' ? undefined : histogramOf(q, aggregation, period);
  const approximate = histogram ? await histogramRowsOf(db, organizationId, q, metric, period, histogram) : undefined;
  if (approximate) {
    const { rows, groups, measures } = approximate;
    return shapeResult(db, organizationId, {
      q,
      metric,
      aggregation,
      period,
      groups,
      measures,
      buckets: bucketsFor(groups),
      rows,
      chartId: context.chartId,
      name: context.name,
      relativeError: RELATIVE_ERROR,
    });
  }
  const params = new Params();
  const bounds = boundsOf(params, organizationId, period);
  const source = sourceOf(q, metric, aggregation, period, bounds, () => fieldValue(q.field!, params), context);
  const groups = groupsOf(q, metric, source, params, tzName);
  const buckets = bucketsFor(groups);
  const where = whereOf(q, source, bounds, params);
  const rows = await db.$queryRawUnsafe<Row[]>(statementOf(source, groups, where), ...params.values);
  return shapeResult(db, organizationId, {
    q,
    metric,
    aggregation,
    period,
    groups,
    measures: source.measures,
    buckets,
    rows,
    chartId: context.chartId,
    name: context.name,
  });
}
