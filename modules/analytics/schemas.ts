import { IANAZone } from 'luxon';
import { z } from 'zod';
import { int } from '../../lib/zod/int.js';
import { idParam, MAX_ID } from '../../lib/zod/query.js';
import { CALL_DIRECTIONS, CALL_STATUSES, CALL_TRANSPORTS } from '../calls/index.js';
import { e164 } from '../../lib/zod/e164.js';
import { AGGREGATIONS, METRIC_NAMES, METRICS, type Aggregation, type MetricDef, type MetricName } from './metrics.js';

// A chart's query (what is measured, how it is grouped and filtered, over which period in which time zone) and the
// saved chart around it. docs/analytics.md describes every field.

export const PERIOD_PRESETS = [
  'today',
  'yesterday',
  'last_24_hours',
  'last_7_days',
  'last_30_days',
  'last_90_days',
  'this_week',
  'last_week',
  'this_month',
  'last_month',
  'this_year',
] as const;
export type PeriodPreset = (typeof PERIOD_PRESETS)[number];
export const TIME_BUCKETS = ['hour', 'day', 'week', 'month'] as const;
export type TimeBucket = (typeof TIME_BUCKETS)[number];
export const DIMENSIONS = ['assistant', 'campaign', 'direction', 'status', 'end_reason', 'phone_number', 'transport'] as const;
export type Dimension = (typeof DIMENSIONS)[number];
export const CHART_TYPES = ['line', 'bar', 'pie', 'number', 'table'] as const;

/** A path into the post-call analysis (`sentiment`, `goal_achieved`, `fields.plan`): letters, digits and `_`, up to 4 deep. */
const FIELD_PATH = /^[A-Za-z0-9_]{1,64}(\.[A-Za-z0-9_]{1,64}){0,3}$/;
export const OUTCOME_PREFIX = 'outcome.';
/** A field that names a value the call's playbooks collected rather than a field of the analysis. */
export const COLLECTED_PREFIX = 'collected.';

const fieldPath = z
  .string()
  .regex(FIELD_PATH, 'Value should be a field of the post-call analysis (letters, digits and _, dotted up to 4 deep: fields.plan), or collected.<name>')
  .refine((f) => !f.startsWith(COLLECTED_PREFIX) || f.split('.').length === 2, {
    message: 'A collected value is collected.<name>',
    params: { type: 'value_error' },
  });

export const timezone = z
  .string()
  .max(64)
  .refine((tz) => IANAZone.isValidZone(tz), { message: 'Value should be an IANA time zone such as Europe/Paris or UTC', params: { type: 'value_error' } });

/** An instant with its offset, or a date read as midnight in the chart's time zone. */
const periodBound = z
  .string()
  .refine((s) => /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/.test(s) && !Number.isNaN(Date.parse(s)), {
    message: 'Input should be a valid datetime (ISO 8601 with an offset) or date (YYYY-MM-DD, midnight in the time zone)',
    params: { type: 'datetime_parsing' },
  });

export const Period = z
  .union([
    z.strictObject({ preset: z.enum(PERIOD_PRESETS) }),
    z.strictObject({ from: periodBound.describe('Inclusive'), to: periodBound.describe('Exclusive') }),
  ])
  .describe('A preset, read in the time zone, or `from` (inclusive) and `to` (exclusive)')
  .meta({ id: 'AnalyticsPeriod' });
export type Period = z.infer<typeof Period>;

const values = <T extends z.ZodType>(item: T) => z.array(item).min(1).max(50).optional();

export const ChartFilters = z
  .strictObject({
    status: values(z.enum(CALL_STATUSES)),
    direction: values(z.enum(CALL_DIRECTIONS)),
    transport: values(z.enum(CALL_TRANSPORTS)),
    assistant_id: values(int().min(1).max(MAX_ID)),
    contact_id: values(int().min(1).max(MAX_ID)),
    campaign_id: values(int().min(1).max(MAX_ID)),
    phone_number: values(e164).describe('Matches the number the call came from or went to'),
    end_reason: values(z.string().min(1).max(64)),
  })
  .describe('The filters of GET /api/calls: values of one filter widen (or), different filters narrow (and)')
  .meta({ id: 'AnalyticsFilters' });
export type ChartFilters = z.infer<typeof ChartFilters>;

export const GroupBy = z
  .union([z.enum(TIME_BUCKETS), z.enum(DIMENSIONS), z.string().regex(new RegExp(`^outcome\\.${FIELD_PATH.source.slice(1, -1)}$`))])
  .describe('`hour`, `day`, `week`, `month` (buckets in the time zone), a call field, or `outcome.<field>` of the post-call analysis');

const queryFields = {
  metric: z.enum(METRIC_NAMES),
  aggregation: z.enum(AGGREGATIONS).optional().describe("The metric's default when omitted (docs/analytics.md)"),
  field: fieldPath
    .optional()
    .describe(
      '`outcomes` and `outcome_value`: a field of the post-call analysis (`sentiment`, `fields.plan`), or `collected.<name>`: the value of that name a playbook collected',
    ),
  group_by: z.array(GroupBy).max(2).default([]),
  filters: ChartFilters.default({}),
  period: Period.default({ preset: 'last_30_days' }),
  timezone: timezone.default('UTC'),
  limit: int().min(1).max(50).default(10).describe('Most series shown; the rest are summed into `other` where the metric adds up'),
};

/** The rules between fields that a schema alone cannot say: what a metric can be aggregated by, what it needs. */
function checkQuery(
  q: { metric: MetricName; aggregation?: Aggregation | undefined; field?: string | undefined; group_by: string[] },
  ctx: z.RefinementCtx,
): void {
  const metric: MetricDef = METRICS[q.metric];
  if (q.aggregation !== undefined && !metric.aggregations.includes(q.aggregation)) {
    ctx.addIssue({ code: 'custom', path: ['aggregation'], message: `${q.metric} takes ${metric.aggregations.join(', ')}`, params: { type: 'value_error' } });
  }
  if (metric.needsField && q.field === undefined)
    ctx.addIssue({ code: 'custom', path: ['field'], message: `${q.metric} needs the field of the analysis it reads`, params: { type: 'missing' } });
  if (q.group_by.filter((g) => (TIME_BUCKETS as readonly string[]).includes(g)).length > 1) {
    ctx.addIssue({ code: 'custom', path: ['group_by'], message: 'At most one time bucket', params: { type: 'value_error' } });
  }
  if (new Set(q.group_by).size !== q.group_by.length)
    ctx.addIssue({ code: 'custom', path: ['group_by'], message: 'A group-by is named twice', params: { type: 'value_error' } });
}

export const ChartQuery = z.strictObject(queryFields).superRefine(checkQuery).meta({ id: 'AnalyticsQuery' });
export type ChartQuery = z.output<typeof ChartQuery>;

export const ChartWrite = z
  .strictObject({ name: z.string().trim().min(1).max(200), chart_type: z.enum(CHART_TYPES).default('line'), ...queryFields })
  .superRefine(checkQuery)
  .meta({ id: 'AnalyticsChartWrite' });
export type ChartWrite = z.output<typeof ChartWrite>;

export const Chart = z
  .object({
    id: z.int(),
    name: z.string(),
    chart_type: z.enum(CHART_TYPES),
    metric: z.enum(METRIC_NAMES),
    aggregation: z.enum(AGGREGATIONS),
    field: z.string().nullable(),
    group_by: z.array(z.string()),
    filters: ChartFilters,
    period: Period,
    timezone: z.string(),
    limit: z.int(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'AnalyticsChart' });

/** What a saved chart can be run with instead of its own period: `period`, `timezone`, or both. */
export const PeriodOverride = z
  .strictObject({ period: Period.optional(), timezone: timezone.optional() })
  .describe('Runs the chart over another period or in another time zone; the saved chart is unchanged')
  .meta({ id: 'AnalyticsPeriodOverride' });
export type PeriodOverride = z.infer<typeof PeriodOverride>;

export const ChartParams = z.object({ chart_id: idParam });

export const ExportQuery = z
  .object({
    format: z.enum(['csv', 'json']).default('csv').describe('`csv`: one row per series and point; `json`: the query result'),
    preset: z.enum(PERIOD_PRESETS).optional().describe('Overrides the period'),
    from: periodBound.optional().describe('With `to`: overrides the period'),
    to: periodBound.optional(),
    timezone: timezone.optional().describe('Overrides the time zone'),
  })
  .superRefine((q, ctx) => {
    if ((q.from === undefined) !== (q.to === undefined)) {
      ctx.addIssue({ code: 'custom', path: [q.from === undefined ? 'from' : 'to'], message: '`from` and `to` go together', params: { type: 'missing' } });
    }
    if (q.preset !== undefined && q.from !== undefined)
      ctx.addIssue({ code: 'custom', path: ['preset'], message: 'Either `preset` or `from` and `to`', params: { type: 'value_error' } });
  })
  .transform(({ format, preset, from, to, timezone: tz }) => ({
    format,
    override: {
      ...(preset ? { period: { preset } } : from !== undefined && to !== undefined ? { period: { from, to } } : {}),
      ...(tz ? { timezone: tz } : {}),
    } as PeriodOverride,
  }));

export const ChartResult = z
  .object({
    chart_id: z.int().nullable(),
    name: z.string().nullable(),
    metric: z.enum(METRIC_NAMES),
    aggregation: z.enum(AGGREGATIONS),
    field: z.string().nullable(),
    unit: z.string().describe('calls, minutes, seconds, ms, usd, ratio (0 to 1), tokens, characters, count'),
    currency: z.string().nullable().describe('USD for costs'),
    period: z
      .object({ preset: z.enum(PERIOD_PRESETS).nullable(), from: z.string(), to: z.string() })
      .describe('As run: `from` inclusive, `to` exclusive, with the offset of the time zone'),
    timezone: z.string(),
    granularity: z.enum(TIME_BUCKETS).nullable(),
    group_by: z.array(z.string()),
    series: z.array(
      z.object({
        key: z
          .record(z.string(), z.union([z.string(), z.number(), z.null()]))
          .describe('The value of each group-by and, for a metric of several measures, `measure`'),
        label: z.string(),
        points: z.array(z.object({ t: z.string().nullable().describe('Start of the bucket; null without a time bucket'), value: z.number().nullable() })),
        total: z.number().nullable().describe('Over the whole period'),
      }),
    ),
    totals: z.object({
      calls: z.int().describe('Calls the query counted'),
      value: z.number().nullable().describe('The metric over the whole period and every group; for several measures, their sum where they add up'),
      measures: z.record(z.string(), z.number().nullable()),
    }),
    truncated: z.boolean().describe('More series than `limit`'),
    approximate: z
      .boolean()
      .describe('Percentiles read from the histograms of the rollups, each within `relative_error` of the exact value; false when computed exactly'),
    relative_error: z.number().nullable().describe('With `approximate`: the largest relative error of a value (0.02 is 2%)'),
    generated_at: z.iso.datetime(),
  })
  .meta({ id: 'AnalyticsResult' });
export type ChartResult = z.infer<typeof ChartResult>;
