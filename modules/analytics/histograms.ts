import type { Aggregation, MetricName } from './metrics.js';
import { PERCENTILES, PERCENTILE_SET } from './metrics.js';
import type { ResolvedPeriod } from './period.js';
import { fitsRollups } from './rollups.js';
import type { ChartQuery } from './schemas.js';
import type { Group } from './series.js';

// Percentiles of duration and latency from the rollups' histograms (`call_rollup_histograms`, kept by the rollups'
// triggers): per rollup key and metric, the count of values in each logarithmic bucket. The percentile is the
// representative of the bucket where the cumulative count passes the value's rank, within RELATIVE_ERROR of it. Below
// EXACT_BELOW values the query reads the raw rows and percentile_cont instead, exactly.

/** Any value of bucket i (gamma^(i-1), gamma^i] is within 2% of 2 * gamma^i / (gamma + 1): gamma = 1.02 / 0.98. */
export const RELATIVE_ERROR = 0.02;
const GAMMA = `(1.02::float8 / 0.98)`;
/**
 * Fewer values than this are read from the calls and their turns, exactly: 50,000 turns are about 17,000 calls of a
 * month, which the `(organization_id, created_at)` index reads in well under the 300 ms a chart has.
 */
export const EXACT_BELOW = 50_000;

/** The histogram of each metric whose percentiles it answers, and the unit its values are divided into (ms to s). */
const HISTOGRAMS: Partial<Record<MetricName, { metric: string; scale: number }>> = {
  duration_seconds: { metric: 'duration_ms', scale: 1000 },
  latency_end_of_utterance_ms: { metric: 'end_of_utterance_delay_ms', scale: 1 },
  latency_llm_ttft_ms: { metric: 'llm_ttft_ms', scale: 1 },
  latency_tts_ttfb_ms: { metric: 'tts_ttfb_ms', scale: 1 },
  latency_e2e_ms: { metric: 'e2e_latency_ms', scale: 1 },
};

export interface Histogram {
  metric: string;
  scale: number;
  /** Each measure and its percentile, as measuresOf names them. */
  percentiles: Array<{ name: string; p: number }>;
}

/** The histogram a percentile query can be answered from, or undefined when it reads the calls. */
export function histogramOf(q: ChartQuery, aggregation: Aggregation, period: ResolvedPeriod): Histogram | undefined {
  const histogram = HISTOGRAMS[q.metric];
  if (!histogram || !fitsRollups(q, period)) return undefined;
  if (aggregation === 'percentiles') return { ...histogram, percentiles: PERCENTILE_SET.map((p) => ({ name: p, p: PERCENTILES[p] })) };
  if (aggregation in PERCENTILES) return { ...histogram, percentiles: [{ name: 'value', p: PERCENTILES[aggregation as keyof typeof PERCENTILES] }] };
  return undefined;
}

const KEY = ['organization_id', 'hour', 'assistant_id', 'campaign_id', 'phone_number_id', 'direction', 'status', 'transport', 'end_reason', 'sentiment'];
const key = (alias: string) => KEY.map((k) => `${alias}.${k}`).join(', ');

export interface HistogramBounds {
  org: string;
  from: string;
  to: string;
  /** The placeholder of the histogram's metric. */
  metric: string;
  /** The statuses of calls under way, as a SQL list. */
  underWay: string;
  /** Reads each hour's rows of every call (assistant -1): the query neither filters nor groups by the other fields. */
  whole: boolean;
}

/** Whether a query can read each hour's histograms of every call rather than those of each combination of fields. */
export const readsWholeHours = (q: ChartQuery, groups: Group[]) =>
  groups.every((g) => g.time) && Object.values(q.filters).every((values) => values === undefined || values.length === 0);

const stored = (b: HistogramBounds) =>
  `FROM call_rollup_histograms h WHERE h.organization_id = ${b.org} AND h.metric = ${b.metric} AND h.hour >= ${b.from} AND h.hour < ${b.to} AND h.assistant_id ${b.whole ? '= -1' : '>= 0'}`;
/**
 * The entries of ended calls not folded yet (migration `call_rollups_folded`): under their own key, or under the whole
 * hour's (assistant -1, the other fields empty) when the query reads those rows, as the folder adds them.
 */
const pending = (b: HistogramBounds, columns: string) =>
  `SELECT ${b.whole ? `p.organization_id, p.hour, -1, -1, -1, '', '', '', '', ''` : key('p')}, ${columns}
   FROM call_rollup_histogram_pending p WHERE p.organization_id = ${b.org} AND p.metric = ${b.metric} AND p.hour >= ${b.from} AND p.hour < ${b.to}`;
/** The same entries made on the spot from the calls still under way, as the rollups read them (query.ts). */
const underWay = (b: HistogramBounds) =>
  `FROM calls c, LATERAL call_rollup_row(c, 1) x, LATERAL call_histogram_entries(c, 1) e
   WHERE c.organization_id = ${b.org} AND c.status IN (${b.underWay}) AND c.created_at >= ${b.from} AND c.created_at < ${b.to} AND e.metric = ${b.metric}`;

/** How many values the period holds under the filters, from the rows' counts: which way the query goes. */
export function countStatement(b: HistogramBounds, where: string[]): string {
  const rows = `(SELECT ${key('h')}, h.value_count AS n ${stored(b)}
    UNION ALL ${pending(b, 'p.n')} AND p.bucket IS NOT NULL
    UNION ALL SELECT ${key('x')}, 1 ${underWay(b)} AND e.bucket IS NOT NULL) r`;
  return `SELECT coalesce(sum(r.n), 0)::float8 AS n FROM ${rows} WHERE ${where.join(' AND ')}`;
}

/** The histograms' entries of the period, one row per bucket (`bucket`, `n`), and per row its calls (`bucket` null). */
export function histogramRows(b: HistogramBounds): string {
  return `(SELECT ${key('h')}, h.low_bucket + u.i - 1 AS bucket, u.n ${stored(b).replace('FROM call_rollup_histograms h', 'FROM call_rollup_histograms h, unnest(h.counts) WITH ORDINALITY u(n, i)')} AND u.n <> 0
    UNION ALL SELECT ${key('h')}, NULL, h.calls ${stored(b)} AND h.calls <> 0
    UNION ALL ${pending(b, 'p.bucket, p.n')}
    UNION ALL SELECT ${key('x')}, e.bucket, e.n ${underWay(b)}) r`;
}

/**
 * The percentiles of each group as one statement. Buckets are first summed by hour and the columns the groups read,
 * so that the time zone's buckets are computed once per hour rather than once per entry; then by GROUPING SETS as
 * every query is (query.ts), and a running count per group finds the bucket of each rank.
 */
export function histogramStatement(h: Histogram, rows: string, groups: Group[], where: string[]): string {
  const columns = [...new Set(groups.flatMap((g) => [...g.sql.matchAll(/\br\.(\w+)/g)].map((m) => `r.${m[1]}`)))];
  const inner = `SELECT ${[...columns, 'r.bucket', 'sum(r.n)::float8 AS n'].join(', ')} FROM ${rows} WHERE ${where.join(' AND ')} GROUP BY ${[...columns, 'r.bucket'].join(', ')}`;
  const others = groups.filter((g) => !g.time);
  const sets = new Map<string, Group[]>();
  for (const set of [groups, others, []]) sets.set(set.map((g) => g.name).join(','), set);
  const grouped = [...groups.map((g, i) => `${g.sql} AS d${i}`), ...groups.map((g, i) => `GROUPING(${g.sql}) AS g${i}`)];
  const names = groups.flatMap((_, i) => [`d${i}`, `g${i}`]);
  const partition = names.length === 0 ? '' : `PARTITION BY ${names.join(', ')}`;
  const calls = 'coalesce(sum(n) FILTER (WHERE bucket IS NULL), 0)';
  const measures = h.percentiles.map(({ p }, i) => {
    const bucket = `min(bucket) FILTER (WHERE bucket IS NOT NULL AND cum > floor(${p} * (total - 1)))`;
    return `(CASE WHEN ${bucket} = 0 THEN 0 ELSE 2 * power(${GAMMA}, ${bucket}) / (${GAMMA} + 1) END / ${h.scale.toFixed(1)})::float8 AS m${i}`;
  });
  return `WITH b AS (
      SELECT ${[...grouped, 'r.bucket', 'sum(r.n) AS n'].join(', ')} FROM (${inner}) r
      GROUP BY GROUPING SETS (${[...sets.values()].map((s) => `(${[...s.map((g) => g.sql), 'r.bucket'].join(', ')})`).join(', ')})),
    c AS (
      SELECT b.*, sum(n) FILTER (WHERE bucket IS NOT NULL) OVER (${partition} ORDER BY bucket) AS cum, sum(n) FILTER (WHERE bucket IS NOT NULL) OVER (${partition}) AS total FROM b)
    SELECT ${[...names, `${calls}::int AS calls`, ...measures].join(', ')} FROM c ${names.length === 0 ? '' : `GROUP BY ${names.join(', ')}`} HAVING ${calls} <> 0`;
}
