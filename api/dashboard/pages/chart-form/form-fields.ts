import { DateTime } from 'luxon';
import type { FieldErrors } from '../../forms.js';
import { DEFAULTS, DIMENSIONS, TIME_BUCKETS } from './schema-facts.js';

// The chart form's fields as a person fills them in, and the API's body they mean. The form posts plain fields, so it
// works without a script: the grouping as a time radio, call fields ticked and an outcome field typed; each filter's
// values ticked (assistants, campaigns and contacts by name, numbers by number) with a line for values no box offers;
// the period as a preset or "custom" with a first and a last day. Two things are typed the way people think of them and
// turned into the API's here: the last day is included (the API's `to` is the day after, excluded), and an outcome
// field is typed without its `outcome.` prefix. Everything else is the API's to judge (ChartWrite), so a refusal is its own.

/** The filters whose values are ticked, in the order the form shows them. */
export const FILTERS = ['status', 'direction', 'transport', 'end_reason', 'assistant_id', 'campaign_id', 'phone_number', 'contact_id'] as const;
export type FilterName = (typeof FILTERS)[number];
/** Filters with a line for values no box offers (an end reason the list lacks, a caller's number). */
export const TYPED = new Set<FilterName>(['end_reason', 'phone_number']);
/** Filters of the organisation's own things, picked by name. */
export const OWNED = new Set<FilterName>(['assistant_id', 'campaign_id', 'contact_id']);

/** The preset select's choice for a period given by its two days. */
export const CUSTOM = 'custom';

/** Scalar fields by the name they post under. */
export const SCALARS = [
  'name',
  'chart_type',
  'metric',
  'aggregation',
  'field',
  'limit',
  'timezone',
  'period.preset',
  'period.from',
  'period.last_day',
  'group_by.time',
  'group_by.outcome',
  'filters.end_reason.other',
  'filters.phone_number.other',
  'contact_search',
] as const;
type Scalar = (typeof SCALARS)[number];

export interface ChartFormValues {
  fields: Record<Scalar, string>;
  /** The call fields ticked to split by. */
  groups: string[];
  /** Each filter's ticked values, as posted. */
  filters: Record<FilterName, string[]>;
}

/** What the organisation owns among the ids ticked: read before the body is made, so a foreign id is refused. */
export interface Owned {
  assistants: ReadonlySet<number>;
  campaigns: ReadonlySet<number>;
  contacts: ReadonlySet<number>;
}

export interface ChartBody {
  body: Record<string, unknown>;
  /** Refusals only the form can make (an id that is not the organisation's), at the control that shows it. */
  problems: FieldErrors;
  /** Where each entry of `group_by` came from, so a refusal of `group_by.2` reaches its control. */
  groupSources: ('time' | 'field' | 'outcome')[];
}

/** A stored chart, or the defaults of a new one, as the API has it. */
export interface ChartSettings {
  name?: string | undefined;
  chart_type?: string | undefined;
  metric?: string | undefined;
  aggregation?: string | null | undefined;
  field?: string | null | undefined;
  group_by?: readonly string[] | undefined;
  filters?: Partial<Record<FilterName, readonly (string | number)[]>> | undefined;
  period?: { preset: string } | { from: string; to: string } | undefined;
  timezone?: string | undefined;
  limit?: number | undefined;
}

// A posted field is a string, a list of strings when repeated, or (from a hand-made request) anything at all.
const texts = (v: unknown): string[] => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
const first = (v: unknown): string => texts(v)[0] ?? '';
const unique = (list: string[]) => [...new Set(list.map((s) => s.trim()).filter((s) => s !== ''))];

const OUTCOME = 'outcome.';
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function emptyFilters(): Record<FilterName, string[]> {
  return Object.fromEntries(FILTERS.map((f) => [f, []])) as unknown as Record<FilterName, string[]>;
}

/** A bound as a day in the chart's zone: the day itself, or the day an instant falls on. */
function dayOf(bound: string, zone: string): string {
  if (DATE.test(bound)) return bound;
  const at = DateTime.fromISO(bound, { setZone: true }).setZone(zone);
  return at.isValid ? at.toISODate()! : bound;
}

/** The last day a period includes: the day before its exclusive `to` (the instant just before it, for an instant). */
function lastDayOf(to: string, zone: string): string {
  if (DATE.test(to)) {
    const day = DateTime.fromISO(to, { zone: 'UTC' });
    return day.isValid ? day.minus({ days: 1 }).toISODate()! : to;
  }
  const at = DateTime.fromISO(to, { setZone: true }).setZone(zone);
  return at.isValid ? at.minus({ milliseconds: 1 }).toISODate()! : to;
}

/** The API's exclusive `to` for a last day typed; text that is no date goes as typed, for the API to refuse. */
function toOfLastDay(last: string): string {
  const day = DATE.test(last) ? DateTime.fromISO(last, { zone: 'UTC' }) : undefined;
  return day?.isValid ? day.plus({ days: 1 }).toISODate()! : last;
}

/** The form filled from stored settings (a chart read from the API, or the defaults of a new one). */
export function valuesOfChart(chart: ChartSettings): ChartFormValues {
  const zone = chart.timezone ?? DEFAULTS.timezone;
  const period = chart.period ?? DEFAULTS.period;
  const groups = chart.group_by ?? [];
  const filters = emptyFilters();
  for (const name of FILTERS) filters[name] = (chart.filters?.[name] ?? []).map(String);
  const outcome = groups.find((g) => g.startsWith(OUTCOME));
  return {
    fields: {
      name: chart.name ?? '',
      chart_type: chart.chart_type ?? DEFAULTS.chart_type,
      metric: chart.metric ?? '',
      aggregation: chart.aggregation ?? '',
      field: chart.field ?? '',
      limit: String(chart.limit ?? DEFAULTS.limit),
      timezone: zone,
      'period.preset': 'preset' in period ? period.preset : CUSTOM,
      'period.from': 'from' in period ? dayOf(period.from, zone) : '',
      'period.last_day': 'to' in period ? lastDayOf(period.to, zone) : '',
      'group_by.time': groups.find((g) => TIME_BUCKETS.includes(g)) ?? '',
      'group_by.outcome': outcome ? outcome.slice(OUTCOME.length) : '',
      'filters.end_reason.other': '',
      'filters.phone_number.other': '',
      contact_search: '',
    },
    groups: groups.filter((g) => DIMENSIONS.includes(g)),
    filters,
  };
}

/** The form as posted, every field read as text whatever its shape. */
export function valuesOfPost(posted: unknown): ChartFormValues {
  const form = posted !== null && typeof posted === 'object' && !Array.isArray(posted) ? (posted as Record<string, unknown>) : {};
  const fields = Object.fromEntries(SCALARS.map((key) => [key, first(form[key])])) as Record<Scalar, string>;
  const filters = emptyFilters();
  for (const name of FILTERS) filters[name] = unique(texts(form[`filters.${name}`]));
  return { fields, groups: unique(texts(form.group_by)), filters };
}

/** Values typed on one line, split at commas and line ends; a number written with spaces or dashes is closed up. */
function typedValues(text: string, phone: boolean): string[] {
  const parts = text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return phone ? parts.map((s) => (/^\+[\d\s().-]+$/.test(s) ? s.replace(/[\s().-]/g, '') : s)) : parts;
}

/** An id as the API reads it: a whole number, or the text as posted for the API to refuse. */
const idOf = (text: string): number | string => (/^\d{1,15}$/.test(text) ? Number(text) : text);

export const ownedKey = (filter: FilterName, value: string): string => `filters.${filter}.${value}`;

const NOT_OURS: Record<string, string> = {
  assistant_id: 'Not one of this organisation’s assistants: untick it.',
  campaign_id: 'Not one of this organisation’s campaigns: untick it.',
  contact_id: 'Not one of this organisation’s contacts: untick it.',
};

/** The API's body for the form, and the ids ticked that are not the organisation's, refused at their boxes. */
export function bodyOfValues(values: ChartFormValues, owned: Owned): ChartBody {
  const f = values.fields;
  const body: Record<string, unknown> = { name: f.name };
  const set = (key: string, text: string) => {
    if (text.trim() !== '') body[key] = text.trim();
  };
  set('chart_type', f.chart_type);
  set('metric', f.metric);
  set('aggregation', f.aggregation);
  set('field', f.field);
  set('timezone', f.timezone);
  const limit = f.limit.trim();
  if (limit !== '') body.limit = /^-?\d+(\.\d+)?$/.test(limit) ? Number(limit) : limit;

  // The time first, then the call fields in the order offered, then the outcome: as the default charts are written.
  const groupBy: string[] = [];
  const groupSources: ChartBody['groupSources'] = [];
  const add = (value: string, source: ChartBody['groupSources'][number]) => {
    groupBy.push(value);
    groupSources.push(source);
  };
  const time = f['group_by.time'].trim();
  if (time !== '') add(time, 'time');
  for (const g of [...DIMENSIONS.filter((d) => values.groups.includes(d)), ...values.groups.filter((g) => !DIMENSIONS.includes(g))]) add(g, 'field');
  const outcome = f['group_by.outcome'].trim();
  if (outcome !== '') add(outcome.startsWith(OUTCOME) ? outcome : `${OUTCOME}${outcome}`, 'outcome');
  body.group_by = groupBy;

  const problems: FieldErrors = {};
  const filters: Record<string, unknown[]> = {};
  const ownedBy: Record<string, ReadonlySet<number>> = { assistant_id: owned.assistants, campaign_id: owned.campaigns, contact_id: owned.contacts };
  for (const name of FILTERS) {
    const chosen = [...values.filters[name]];
    if (TYPED.has(name)) for (const typed of typedValues(f[`filters.${name}.other` as Scalar] ?? '', name === 'phone_number')) chosen.push(typed);
    const list = [...new Set(chosen)];
    if (OWNED.has(name)) {
      for (const value of list) {
        const id = idOf(value);
        if (typeof id === 'number' && !ownedBy[name]!.has(id)) problems[ownedKey(name, value)] = NOT_OURS[name]!;
      }
      if (list.length > 0) filters[name] = list.map(idOf);
    } else if (list.length > 0) {
      filters[name] = list;
    }
  }
  body.filters = filters;

  const preset = f['period.preset'].trim();
  if (preset === CUSTOM) body.period = { from: f['period.from'].trim(), to: toOfLastDay(f['period.last_day'].trim()) };
  else if (preset !== '') body.period = { preset };
  return { body, problems, groupSources };
}
