import { TERMINAL } from '../calls/index.js';

// What a chart can measure, each as SQL over one call row (`c`) or one assistant turn (`t`), read from indexed
// columns only: never a transcript. docs/analytics.md defines each metric for people.

export const AGGREGATIONS = ['count', 'sum', 'avg', 'min', 'max', 'p50', 'p90', 'p95', 'p99', 'percentiles', 'rate'] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];

export const PERCENTILES = { p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99 } as const;
/** `percentiles` draws these three, as latency is read. */
export const PERCENTILE_SET = ['p50', 'p90', 'p99'] as const;

const TERMINAL_SQL = `c.status IN (${TERMINAL.map((s) => `'${s}'`).join(', ')})`;
/** A person answered: the conversation began and no machine took the call. */
const ANSWERED_SQL = `c.started_at IS NOT NULL AND c.status <> 'voicemail' AND (c.answered_by IS NULL OR c.answered_by IN ('human', 'unknown'))`;
const MACHINE_SQL = `(c.status = 'voicemail' OR c.answered_by LIKE 'machine%' OR c.answered_by = 'fax')`;
/** The post-call analysis said whether the call reached its goal. */
const GOAL_SQL = `c.outcomes ->> 'goal_achieved'`;

/** One number per row and the rows it means something for. `$field` stands for the field's value, as jsonb. */
interface Value {
  sql: string;
  where: string;
}

export interface MetricDef {
  /** Allowed aggregations, the default first. */
  aggregations: readonly Aggregation[];
  unit: string;
  currency?: 'USD';
  /** Reads assistant turns: one row per turn rather than per call. */
  turns?: boolean;
  /** Reads a value extracted from the call (`field`): of the post-call analysis, or collected by a playbook. */
  needsField?: boolean;
  /** Grouped by this as well, whatever the chart's group-bys: its values are what the metric shows. */
  implicitGroup?: 'end_reason' | 'outcome';
  /** The numbers aggregated, by measure name; several for a breakdown. */
  values?: Record<string, Value>;
  /** For `rate`: the share of the rows in `of` for which `when` holds. */
  rate?: { when: string; of: string };
  /** The only rows the metric reads (a call that has not ended has no end reason to count). */
  only?: string;
}

const one = (sql: string, where: string) => ({ value: { sql, where } });
const SUMS = ['sum', 'avg'] as const;
const SPREAD = ['avg', 'p50', 'p90', 'p95', 'p99', 'percentiles', 'min', 'max', 'sum'] as const;
const LATENCY = ['p50', 'p90', 'p95', 'p99', 'percentiles', 'avg', 'min', 'max'] as const;
const latency = (column: string): MetricDef => ({ aggregations: LATENCY, unit: 'ms', turns: true, values: one(`t.${column}`, `t.${column} IS NOT NULL`) });
/** A call is metered when it ends (its cost and usage columns are set together): averages of usage are over those calls. */
const METERED = 'c.cost_micro_usd IS NOT NULL';
const metered = (column: string, scale = 1): Value => ({ sql: `coalesce(${column}, 0)${scale === 1 ? '' : ` / ${scale.toFixed(1)}`}`, where: METERED });
const costOf = (column: string): Value => metered(`c.${column}`, 1_000_000);
const OUTCOME_NUMBER = `CASE WHEN jsonb_typeof($field) = 'number' THEN ($field #>> '{}')::float8 END`;

export const METRICS = {
  calls: { aggregations: ['count'], unit: 'calls' },
  minutes: { aggregations: SUMS, unit: 'minutes', values: one('c.duration_ms / 60000.0', 'c.duration_ms IS NOT NULL') },
  duration_seconds: { aggregations: SPREAD, unit: 'seconds', values: one('c.duration_ms / 1000.0', 'c.started_at IS NOT NULL AND c.duration_ms IS NOT NULL') },
  cost: { aggregations: SUMS, unit: 'usd', currency: 'USD', values: { value: costOf('cost_micro_usd') } },
  cost_by_component: {
    aggregations: SUMS,
    unit: 'usd',
    currency: 'USD',
    values: {
      llm: costOf('cost_llm_micro_usd'),
      stt: costOf('cost_stt_micro_usd'),
      tts: costOf('cost_tts_micro_usd'),
      telephony: costOf('cost_telephony_micro_usd'),
    },
  },
  llm_tokens: { aggregations: SUMS, unit: 'tokens', values: { input: metered('c.llm_input_tokens'), output: metered('c.llm_output_tokens') } },
  stt_minutes: { aggregations: SUMS, unit: 'minutes', values: { value: metered('c.stt_audio_ms', 60_000) } },
  tts_characters: { aggregations: SUMS, unit: 'characters', values: { value: metered('c.tts_characters') } },
  answer_rate: { aggregations: ['rate'], unit: 'ratio', rate: { when: ANSWERED_SQL, of: TERMINAL_SQL } },
  voicemail_rate: { aggregations: ['rate'], unit: 'ratio', rate: { when: MACHINE_SQL, of: TERMINAL_SQL } },
  transfer_rate: { aggregations: ['rate'], unit: 'ratio', rate: { when: `c.end_reason = 'transferred'`, of: 'c.started_at IS NOT NULL' } },
  success_rate: { aggregations: ['rate'], unit: 'ratio', rate: { when: `${GOAL_SQL} = 'true'`, of: `${GOAL_SQL} IN ('true', 'false')` } },
  end_reasons: { aggregations: ['count'], unit: 'calls', implicitGroup: 'end_reason', only: 'c.end_reason IS NOT NULL' },
  outcomes: { aggregations: ['count'], unit: 'calls', needsField: true, implicitGroup: 'outcome', only: `coalesce($field #>> '{}', '') <> ''` },
  outcome_value: { aggregations: SPREAD, unit: 'value', needsField: true, values: one(OUTCOME_NUMBER, `jsonb_typeof($field) = 'number'`) },
  latency_end_of_utterance_ms: latency('end_of_utterance_delay_ms'),
  latency_llm_ttft_ms: latency('llm_ttft_ms'),
  latency_tts_ttfb_ms: latency('tts_ttfb_ms'),
  latency_e2e_ms: latency('e2e_latency_ms'),
  interruptions_per_call: { aggregations: ['avg', 'sum'], unit: 'count', values: { value: metered('c.interruptions') } },
  tool_calls: { aggregations: SUMS, unit: 'count', values: { value: metered('c.tool_calls') } },
  tool_failures: { aggregations: SUMS, unit: 'count', values: { value: metered('c.tool_failures') } },
} as const satisfies Record<string, MetricDef>;

export type MetricName = keyof typeof METRICS;
export const METRIC_NAMES = Object.keys(METRICS) as [MetricName, ...MetricName[]];

export interface Measure {
  name: string;
  /** An aggregate expression, as double precision. */
  sql: string;
}

/** Whether a measure's values over parts add up to its value over the whole (so `other` and totals can be summed). */
export const additive = (aggregation: Aggregation) => aggregation === 'count' || aggregation === 'sum';

/** The condition on the rows a metric reads, if any; `field` is the field's value as jsonb (fieldValue in query.ts). */
export function rowsOf(metric: MetricDef, field: string): string | undefined {
  return metric.only?.replaceAll('$field', field);
}

/** The aggregate expressions a metric is computed with; `field` is the field's value as jsonb. */
export function measuresOf(metric: MetricDef, aggregation: Aggregation, field: string): Measure[] {
  const bind = (sql: string) => sql.replaceAll('$field', field);
  if (aggregation === 'count') return [{ name: 'value', sql: 'count(*)::float8' }];
  if (aggregation === 'rate') {
    const rate = metric.rate!;
    return [{ name: 'value', sql: `avg(CASE WHEN ${bind(rate.when)} THEN 1.0 ELSE 0.0 END) FILTER (WHERE ${bind(rate.of)})::float8` }];
  }
  const values = Object.entries(metric.values ?? {});
  const single = values.length === 1;
  return values.flatMap(([name, v]) => {
    const sql = bind(v.sql);
    const where = `FILTER (WHERE ${bind(v.where)})`;
    const named = (suffix: string) => (single ? suffix : `${name}_${suffix}`);
    if (aggregation === 'percentiles') {
      return PERCENTILE_SET.map((p) => ({ name: named(p), sql: `percentile_cont(${PERCENTILES[p]}) WITHIN GROUP (ORDER BY ${sql}) ${where}` }));
    }
    const fn =
      aggregation === 'sum'
        ? `coalesce(sum(${sql}) ${where}, 0)`
        : aggregation in PERCENTILES
          ? `percentile_cont(${PERCENTILES[aggregation as keyof typeof PERCENTILES]}) WITHIN GROUP (ORDER BY ${sql}) ${where}`
          : `${aggregation}(${sql}) ${where}`;
    return [{ name: single ? 'value' : name, sql: `(${fn})::float8` }];
  });
}
