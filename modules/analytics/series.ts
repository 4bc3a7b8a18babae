import type { DateTime } from 'luxon';
import type { Db } from '../../prisma/client.js';
import { additive, type Aggregation, type MetricDef, type Measure } from './metrics.js';
import type { ResolvedPeriod } from './period.js';
import type { ChartQuery, ChartResult, TimeBucket } from './schemas.js';
import { labelsOf } from './labels.js';

// A query's rows (query.ts) shaped into its answer. The statement groups by GROUPING SETS: a row with every group-by
// is a point, one with all but the time bucket a series' total, one with none the overall total; GROUPING() says which.

export type Row = Record<string, unknown> & { calls: number };

/** A group-by as SQL: a call column, a bucket of its creation in the time zone, or a field of the analysis. */
export interface Group {
  name: string;
  sql: string;
  time?: TimeBucket;
}

export interface Shaping {
  q: ChartQuery;
  metric: MetricDef;
  aggregation: Aggregation;
  period: ResolvedPeriod;
  groups: Group[];
  measures: Measure[];
  buckets: DateTime[] | null;
  rows: Row[];
  chartId?: number | null | undefined;
  name?: string | null | undefined;
  /** Set when the values come from the histograms: how far each can be from the exact one, relatively. */
  relativeError?: number | undefined;
}

type Key = Record<string, string | number | null>;

/** The statement's rows as the answer: a series per group value, a point per bucket, the totals. */
export async function shapeResult(db: Db, organizationId: number, s: Shaping): Promise<ChartResult> {
  const { groups, measures, rows, q } = s;
  const timeIndex = groups.findIndex((g) => g.time);
  const keyed = groups.map((_, i) => i).filter((i) => i !== timeIndex);
  const present = (row: Row, i: number) => Number(row[`g${i}`] ?? 0) === 0;
  const keyOf = (row: Row): Key => Object.fromEntries(keyed.map((i) => [groups[i]!.name, (row[`d${i}`] as string | number | null) ?? null]));
  const idOf = (row: Row) => JSON.stringify(keyed.map((i) => row[`d${i}`] ?? null));
  const overall = rows.find((r) => groups.every((_, i) => !present(r, i)));
  // A series per value of the group-bys other than time: its total is the row grouped by them alone.
  const seriesRows =
    keyed.length === 0 ? (overall ? [overall] : []) : rows.filter((r) => keyed.every((i) => present(r, i)) && (timeIndex < 0 || !present(r, timeIndex)));
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
  const labelOf = (key: Key, measure: string) =>
    [...Object.entries(key).map(([name, value]) => labels(name, value)), ...(several ? [measure] : [])].join(' · ') || q.metric;
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
  const series: ChartResult['series'] = shown.flatMap((row) =>
    measures.map((m, mi) => seriesOf([row], keyOf(row), mi, num(row[`m${mi}`]), labelOf(keyOf(row), m.name))),
  );
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
    chart_id: s.chartId ?? null,
    name: s.name ?? null,
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
    approximate: s.relativeError !== undefined,
    relative_error: s.relativeError ?? null,
    generated_at: new Date().toISOString(),
  };
}

function num(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}
