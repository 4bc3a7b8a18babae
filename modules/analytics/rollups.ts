import { TERMINAL } from '../calls/index.js';
import type { Aggregation, MetricName } from './metrics.js';
import type { ResolvedPeriod } from './period.js';
import { DIMENSIONS, TIME_BUCKETS, type ChartFilters, type ChartQuery, type Dimension } from './schemas.js';

// Charts answered from `call_rollups`, the hourly sums a trigger on calls keeps (migration `call_rollups`): a month of
// a million calls is a few tens of thousands of rows there. A query can be when every part of it is in the rollup: a
// per-call metric whose aggregation is a sum or a ratio of sums, group-bys and filters on the rollup's fields, and a
// period of whole UTC hours in a zone whose offset is whole hours (so every hour falls in one local bucket). Anything
// else (analysis fields but the sentiment, latency averages, contact and phone number filters, `last_24_hours`,
// zones such as Asia/Kolkata) reads the calls themselves, with the same definitions (metrics.ts). Percentiles of
// duration and latency that fit the rollups read their histograms (histograms.ts).

const TERMINAL_SQL = `r.status IN (${TERMINAL.map((s) => `'${s}'`).join(', ')})`;
const ratio = (part: string, whole: string, where?: string) => {
  const only = where ? ` FILTER (WHERE ${where})` : '';
  return `(sum(${part})${only}::float8 / nullif(sum(${whole})${only}, 0))`;
};
const sumOrAvg = (column: string, scale = 1, per = 'r.metered') => ({
  sum: `(sum(${column}) / ${scale.toFixed(1)})::float8`,
  avg: `(sum(${column}) / ${scale.toFixed(1)} / nullif(sum(${per}), 0))::float8`,
});

/** Each metric's measures over rollup rows, by aggregation; a metric or aggregation missing here reads the calls. */
const ROLLED: Partial<Record<MetricName, Partial<Record<Aggregation, Record<string, string>>>>> = {
  calls: { count: { value: 'sum(r.calls)::float8' } },
  minutes: { sum: { value: sumOrAvg('r.duration_ms', 60_000).sum }, avg: { value: sumOrAvg('r.duration_ms', 60_000, 'r.duration_calls').avg } },
  duration_seconds: { sum: { value: sumOrAvg('r.talk_ms', 1000).sum }, avg: { value: sumOrAvg('r.talk_ms', 1000, 'r.talk_calls').avg } },
  cost: { sum: { value: sumOrAvg('r.cost_micro_usd', 1e6).sum }, avg: { value: sumOrAvg('r.cost_micro_usd', 1e6).avg } },
  cost_by_component: byAggregation(
    { llm: 'r.cost_llm_micro_usd', stt: 'r.cost_stt_micro_usd', tts: 'r.cost_tts_micro_usd', telephony: 'r.cost_telephony_micro_usd' },
    1e6,
  ),
  llm_tokens: byAggregation({ input: 'r.llm_input_tokens', output: 'r.llm_output_tokens' }, 1),
  stt_minutes: { sum: { value: sumOrAvg('r.stt_audio_ms', 60_000).sum }, avg: { value: sumOrAvg('r.stt_audio_ms', 60_000).avg } },
  tts_characters: { sum: { value: sumOrAvg('r.tts_characters').sum }, avg: { value: sumOrAvg('r.tts_characters').avg } },
  answer_rate: { rate: { value: ratio('r.answered', 'r.calls', TERMINAL_SQL) } },
  voicemail_rate: { rate: { value: ratio('r.machine', 'r.calls', TERMINAL_SQL) } },
  transfer_rate: { rate: { value: ratio('r.transferred', 'r.started') } },
  success_rate: { rate: { value: ratio('r.goal_true', 'r.goal_judged') } },
  end_reasons: { count: { value: 'sum(r.calls)::float8' } },
  outcomes: { count: { value: 'sum(r.calls)::float8' } },
  interruptions_per_call: { avg: { value: sumOrAvg('r.interruptions').avg }, sum: { value: sumOrAvg('r.interruptions').sum } },
  tool_calls: { sum: { value: sumOrAvg('r.tool_calls').sum }, avg: { value: sumOrAvg('r.tool_calls').avg } },
  tool_failures: { sum: { value: sumOrAvg('r.tool_failures').sum }, avg: { value: sumOrAvg('r.tool_failures').avg } },
};

function byAggregation(columns: Record<string, string>, scale: number) {
  const of = (pick: 'sum' | 'avg') => Object.fromEntries(Object.entries(columns).map(([name, column]) => [name, sumOrAvg(column, scale)[pick]]));
  return { sum: of('sum'), avg: of('avg') };
}

/** The rollup's column for a group-by or filter; ids and end reasons it keeps as 0 or '' for none. */
export const ROLLUP_COLUMNS: Record<Dimension, string> = {
  assistant: 'nullif(r.assistant_id, 0)',
  campaign: 'nullif(r.campaign_id, 0)',
  phone_number: 'nullif(r.phone_number_id, 0)',
  end_reason: "nullif(r.end_reason, '')",
  direction: 'r.direction',
  status: 'r.status',
  transport: 'r.transport',
};

/** The one field of the post-call analysis the rollups keep: the analysis always gives it. */
export const ROLLED_OUTCOME = 'outcome.sentiment';
export const ROLLED_OUTCOME_COLUMN = "nullif(r.sentiment, '')";

const ROLLED_FILTERS: ReadonlyArray<keyof ChartFilters> = ['status', 'direction', 'transport', 'assistant_id', 'campaign_id', 'end_reason'];

/** Whether the query's group-bys, filters and period are the rollups' own: their fields, whole UTC hours. */
export function fitsRollups(q: ChartQuery, period: ResolvedPeriod): boolean {
  const groups = q.group_by.every(
    (g) => (TIME_BUCKETS as readonly string[]).includes(g) || (DIMENSIONS as readonly string[]).includes(g) || g === ROLLED_OUTCOME,
  );
  const filters = Object.entries(q.filters).every(([name, values]) => values === undefined || ROLLED_FILTERS.includes(name as keyof ChartFilters));
  const wholeHours = [period.from, period.to].every((t) => t.offset % 60 === 0 && t.toUTC().startOf('hour').toMillis() === t.toMillis());
  return groups && filters && wholeHours;
}

/** The measures of the query over the rollup, or undefined when it must read the calls. */
export function rolledMeasures(q: ChartQuery, aggregation: Aggregation, period: ResolvedPeriod): Array<{ name: string; sql: string }> | undefined {
  const measures = ROLLED[q.metric]?.[aggregation];
  if (!measures || (q.metric === 'outcomes' && `outcome.${q.field}` !== ROLLED_OUTCOME)) return undefined;
  if (!fitsRollups(q, period)) return undefined;
  return Object.entries(measures).map(([name, sql]) => ({ name, sql }));
}
