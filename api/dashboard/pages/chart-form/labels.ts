import { CALL_DIRECTIONS, CALL_STATUSES, CALL_TRANSPORTS } from '../../../../modules/calls/index.js';
import { METRICS, PERIOD_PRESETS } from '../../../../modules/analytics/index.js';

// A chart's settings in people's words. The values posted and stored are always the API's own (`latency_e2e_ms`,
// `p90`, `no_answer`); these say what each means. A value the API gains and this table does not name yet is offered
// under its own name, so nothing the API takes is out of reach of the form.

export const inWords = (value: string, table: Record<string, string>): string => table[value] ?? value.replace(/_/g, ' ');

/** Each measure's name, the unit it is counted in, and the group it is listed under. */
export const METRIC_WORDS: Record<string, { label: string; unit: string; group: string }> = {
  calls: { label: 'Calls', unit: 'a count', group: 'Volume' },
  minutes: { label: 'Minutes talked', unit: 'minutes', group: 'Volume' },
  duration_seconds: { label: 'Call length', unit: 'seconds', group: 'Volume' },
  end_reasons: { label: 'Why calls ended', unit: 'calls per reason', group: 'Volume' },
  cost: { label: 'Cost', unit: 'US dollars', group: 'Cost and usage' },
  cost_by_component: { label: 'Cost by part (model, transcription, voice, telephony)', unit: 'US dollars', group: 'Cost and usage' },
  llm_tokens: { label: 'Model tokens, in and out', unit: 'tokens', group: 'Cost and usage' },
  stt_minutes: { label: 'Audio transcribed', unit: 'minutes', group: 'Cost and usage' },
  tts_characters: { label: 'Characters spoken', unit: 'characters', group: 'Cost and usage' },
  answer_rate: { label: 'Answered by a person', unit: '% of ended calls', group: 'Rates' },
  voicemail_rate: { label: 'Taken by a machine', unit: '% of ended calls', group: 'Rates' },
  transfer_rate: { label: 'Transferred', unit: '% of conversations', group: 'Rates' },
  success_rate: { label: 'Goal reached', unit: '% of judged calls', group: 'Rates' },
  outcomes: { label: 'Top outcomes', unit: 'calls per value of a field', group: 'Outcomes' },
  outcome_value: { label: 'Outcome value', unit: 'a number field', group: 'Outcomes' },
  latency_e2e_ms: { label: 'Reply time', unit: 'ms', group: 'Latency' },
  latency_end_of_utterance_ms: { label: 'End-of-turn wait', unit: 'ms', group: 'Latency' },
  latency_llm_ttft_ms: { label: 'Model first token', unit: 'ms', group: 'Latency' },
  latency_tts_ttfb_ms: { label: 'Voice first sound', unit: 'ms', group: 'Latency' },
  interruptions_per_call: { label: 'Interruptions', unit: 'per call', group: 'Conversation' },
  tool_calls: { label: 'Tool calls', unit: 'per call or in all', group: 'Conversation' },
  tool_failures: { label: 'Tool failures', unit: 'per call or in all', group: 'Conversation' },
};

export const metricLabel = (metric: string): string => METRIC_WORDS[metric]?.label ?? metric.replace(/_/g, ' ');
export const metricUnit = (metric: string): string => METRIC_WORDS[metric]?.unit ?? (METRICS as Record<string, { unit: string }>)[metric]?.unit ?? '';

/** The measures by group, in the order the groups first appear above; one the table lacks goes under "Other". */
export function metricGroups(): { group: string; metrics: string[] }[] {
  const groups = new Map<string, string[]>();
  for (const metric of Object.keys(METRICS)) {
    const group = METRIC_WORDS[metric]?.group ?? 'Other';
    groups.set(group, [...(groups.get(group) ?? []), metric]);
  }
  return [...groups].map(([group, metrics]) => ({ group, metrics }));
}

/** The aggregations a measure takes, its usual one first. */
export const aggregationsOf = (metric: string): readonly string[] =>
  (METRICS as Record<string, { aggregations: readonly string[] }>)[metric]?.aggregations ?? [];

export const AGGREGATION_WORDS: Record<string, string> = {
  count: 'Count',
  sum: 'Total',
  avg: 'Average',
  min: 'Lowest',
  max: 'Highest',
  p50: 'Median (p50)',
  p90: '90th percentile (p90)',
  p95: '95th percentile (p95)',
  p99: '99th percentile (p99)',
  percentiles: 'Median, p90 and p99 together',
  rate: 'Share',
};

export const CHART_TYPE_WORDS: Record<string, string> = {
  line: 'Lines over time',
  bar: 'Bars',
  pie: 'Shares of the whole',
  number: 'One number',
  table: 'Table',
};

export const BUCKET_WORDS: Record<string, string> = { hour: 'By hour', day: 'By day', week: 'By week (from Monday)', month: 'By month' };

export const DIMENSION_WORDS: Record<string, string> = {
  assistant: 'Assistant',
  campaign: 'Campaign',
  direction: 'Direction (in or out)',
  status: 'Status',
  end_reason: 'Why the call ended',
  phone_number: 'Phone number of the organisation',
  transport: 'How the call was carried',
};

export const STATUS_WORDS: Record<string, string> = {
  queued: 'Queued',
  initiated: 'Dialling',
  ringing: 'Ringing',
  in_progress: 'In progress',
  completed: 'Completed',
  failed: 'Failed',
  busy: 'Busy',
  no_answer: 'No answer',
  voicemail: 'Voicemail',
  canceled: 'Cancelled',
};

export const DIRECTION_WORDS: Record<string, string> = { inbound: 'Coming in', outbound: 'Going out' };

export const TRANSPORT_WORDS: Record<string, string> = {
  sip: 'Phone line (SIP)',
  media_stream: 'Phone carrier’s media stream',
  web: 'Web app (LiveKit room)',
  browser: 'Built-in browser call page',
};

/**
 * The reasons the call runtime, the diallers and the sweeps end calls with (docs/runtime.md, docs/calls.md,
 * docs/campaigns.md). An end reason is open text in the API: one not listed here is typed in as it is.
 */
export const END_REASON_WORDS: Record<string, string> = {
  customer_hangup: 'The caller hung up',
  assistant_ended_call: 'The assistant ended the call',
  idle_timeout: 'The caller stayed silent',
  transferred: 'Transferred',
  max_duration: 'Reached the longest call allowed',
  voicemail: 'A machine answered',
  voicemail_message_left: 'A message was left on a machine',
  busy: 'Busy',
  no_answer: 'No answer',
  session_closed: 'The session ended by itself',
  worker_shutdown: 'The service was restarting',
  llm_error: 'The model failed',
  stt_error: 'Transcription failed',
  tts_error: 'The voice failed',
  missing_credentials: 'A vendor key is missing',
  configuration_error: 'The assistant’s settings could not be used',
  assistant_not_found: 'The assistant was deleted',
  vendor_target_refused: 'A vendor address was refused',
  worker_lost: 'The call’s process stopped',
  not_joined: 'Nobody joined the web call',
  media_never_connected: 'The carrier’s audio never arrived',
  ringing_timeout: 'Rang and was never taken',
  dial_lost: 'The dial was lost',
  not_dialled: 'Never dialled',
  not_started: 'Never started',
};

export const KNOWN_END_REASONS = Object.keys(END_REASON_WORDS);

export const PRESET_WORDS: Record<string, string> = {
  today: 'Today',
  yesterday: 'Yesterday',
  last_24_hours: 'The last 24 hours',
  last_7_days: 'The last 7 days, today included',
  last_30_days: 'The last 30 days, today included',
  last_90_days: 'The last 90 days, today included',
  this_week: 'This week',
  last_week: 'Last week',
  this_month: 'This month',
  last_month: 'Last month',
  this_year: 'This year',
};

/** The schema's lists, re-exported for the form: statuses in the order a call passes through them. */
export const STATUSES: readonly string[] = CALL_STATUSES;
export const DIRECTIONS: readonly string[] = CALL_DIRECTIONS;
export const TRANSPORTS: readonly string[] = CALL_TRANSPORTS;
export const PRESETS: readonly string[] = PERIOD_PRESETS;
