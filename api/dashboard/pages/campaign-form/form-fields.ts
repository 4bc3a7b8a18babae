import { DateTime } from 'luxon';
import type { z } from 'zod';
import { canonicalTimeZone } from '../../../../modules/contacts/index.js';
import type { CampaignWrite } from '../../../../modules/campaigns/index.js';
import type { FieldErrors } from '../../forms.js';
import { bodyOfForm } from '../../schema-form.js';
import { DAYS, LEAVES } from './schema-facts.js';
import { storedEnd, type Range } from './week-summary.js';

// The campaign form's fields as a person types them, and the API's body they mean. The form posts plain fields, so it
// works without a script: each setting under its API path (`pacing.calls_per_minute`), the from-numbers as ticked
// boxes, a day's hours as `window_mon_start[]` and `window_mon_end[]`, the variables as `variable_name[]` and
// `variable_value[]`. Three settings are typed the way people think of them and turned into the API's here: shares in
// percent, the first and last call as local date-times in the campaign's zone, a range ending at 00:00 as one ending at
// midnight. Everything else is the API's to judge (CampaignWrite and the service), so a refusal is always its own.

type Settings = Omit<Partial<z.output<typeof CampaignWrite>>, 'assistant_id'> & { assistant_id?: number | null | undefined };

/** Settings each held in one text field; the lists have editors of their own. */
const LISTS = new Set(['from_numbers', 'schedule.windows', 'variables']);
export const SCALAR_LEAVES = LEAVES.filter((l) => !LISTS.has(l.key));
/** Shares (0 to 1) the form shows in percent. */
export const PERCENT = new Set(['pacing.org_share', 'circuit_breaker.failure_ratio']);
/** Instants the form shows as local date-times in the campaign's zone. */
export const LOCAL_TIMES = new Set(['schedule.start_at', 'schedule.end_at']);
const ZONE = 'schedule.timezone';

export interface VariableRow {
  name: string;
  value: string;
}

export interface FormValues {
  /** Each scalar setting by its API path, as typed: switches `true`/`false`, shares in percent, instants local. */
  fields: Record<string, string>;
  from_numbers: string[];
  /** Each day's ranges, in the order typed. */
  week: Record<string, Range[]>;
  variables: VariableRow[];
}

export interface FormBody {
  body: Record<string, unknown>;
  /** For each window of the body, the day rows it was made from (`schedule.windows.2` is these rows). */
  windowRows: { day: string; index: number }[][];
  /** Refusals only the form can make: a variable without a name, or one named twice, at its row (`variable.3`). */
  problems: FieldErrors;
}

// A posted field is a string, a list of strings when repeated, or (from a hand-made request) anything at all.
const texts = (v: unknown): string[] => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
const first = (v: unknown): string => texts(v)[0] ?? '';
/** A switch posts its hidden "false" and then "true" when on: the last one counts. */
const lastOf = (v: unknown): string => texts(v).at(-1) ?? '';

const percentOf = (share: number) => String(Number((share * 100).toPrecision(12)));
/** 12 significant digits: 33.3 % is 0.333, not 0.33299999999999996. */
const shareOf = (percent: number) => Number((percent / 100).toPrecision(12));

const zoneOf = (text: string | undefined) => canonicalTimeZone(text ?? '') ?? 'UTC';

function localOf(iso: string | null | undefined, zone: string): string {
  if (!iso) return '';
  const at = DateTime.fromISO(iso, { setZone: true }).setZone(zone);
  return at.isValid ? at.toFormat("yyyy-LL-dd'T'HH:mm") : iso;
}

function instantOf(local: string, zone: string): string {
  const at = DateTime.fromISO(local, { zone });
  // A date-time typed with its own offset, or text that is none, goes as typed: the API takes the one, refuses the other.
  return at.isValid && /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?$/.test(local) ? at.toISO({ suppressMilliseconds: true })! : local;
}

function valueAt(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const p of path) current = current !== null && typeof current === 'object' ? (current as Record<string, unknown>)[p] : undefined;
  return current;
}

/** A day's ranges as the form shows them, from the API's windows: earliest first, each once, midnight as 00:00. */
export function weekOf(windows: readonly { days: readonly string[]; start: string; end: string }[]): Record<string, Range[]> {
  const week: Record<string, Range[]> = Object.fromEntries(DAYS.map((d) => [d, []]));
  for (const w of windows) {
    for (const day of w.days) {
      const range = { start: w.start, end: w.end === '24:00' ? '00:00' : w.end };
      const ranges = (week[day] ??= []);
      if (!ranges.some((r) => r.start === range.start && r.end === range.end)) ranges.push(range);
    }
  }
  for (const ranges of Object.values(week)) ranges.sort((a, b) => a.start.localeCompare(b.start) || storedEnd(a.end).localeCompare(storedEnd(b.end)));
  return week;
}

/** The form filled from stored settings (a campaign read from the API, or the defaults of a new one). */
export function valuesOfSettings(settings: Settings): FormValues {
  const zone = zoneOf(settings.schedule?.timezone);
  const fields: Record<string, string> = {};
  for (const leaf of SCALAR_LEAVES) {
    const value = valueAt(settings, leaf.path);
    if (value === undefined || value === null) fields[leaf.key] = '';
    else if (PERCENT.has(leaf.key) && typeof value === 'number') fields[leaf.key] = percentOf(value);
    else if (LOCAL_TIMES.has(leaf.key) && typeof value === 'string') fields[leaf.key] = localOf(value, zone);
    else fields[leaf.key] = typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  return {
    fields,
    from_numbers: [...(settings.from_numbers ?? [])],
    week: weekOf(settings.schedule?.windows ?? []),
    variables: Object.entries(settings.variables ?? {}).map(([name, value]) => ({ name, value })),
  };
}

/** The form as posted, every field read as text whatever its shape; rows left empty are dropped. */
export function valuesOfPost(posted: unknown): FormValues {
  const form = posted !== null && typeof posted === 'object' && !Array.isArray(posted) ? (posted as Record<string, unknown>) : {};
  const fields: Record<string, string> = {};
  for (const leaf of SCALAR_LEAVES) fields[leaf.key] = leaf.kind === 'boolean' ? lastOf(form[leaf.key]) : first(form[leaf.key]);
  const week: Record<string, Range[]> = {};
  for (const day of DAYS) {
    const starts = texts(form[`window_${day}_start[]`]);
    const ends = texts(form[`window_${day}_end[]`]);
    week[day] = Array.from({ length: Math.max(starts.length, ends.length) }, (_, i) => ({
      start: (starts[i] ?? '').trim(),
      end: (ends[i] ?? '').trim(),
    })).filter((r) => r.start !== '' || r.end !== '');
  }
  const names = texts(form['variable_name[]']);
  const values = texts(form['variable_value[]']);
  const variables = Array.from({ length: Math.max(names.length, values.length) }, (_, i) => ({ name: (names[i] ?? '').trim(), value: values[i] ?? '' })).filter(
    (v) => v.name !== '' || v.value !== '',
  );
  return {
    fields,
    from_numbers: [...new Set(texts(form.from_numbers).map((n) => n.trim()))].filter((n) => n !== ''),
    week,
    variables,
  };
}

/**
 * The API's body for the form. From-numbers keep the order stored (`storedNumbers`) with new ones after, so an
 * unchanged list is the same list: a running campaign refuses any change to it.
 */
export function bodyOfValues(values: FormValues, storedNumbers: readonly string[] = []): FormBody {
  const zone = zoneOf(values.fields[ZONE]);
  const text: Record<string, string> = {};
  for (const leaf of SCALAR_LEAVES) {
    const typed = (values.fields[leaf.key] ?? '').trim();
    const percent = Number(typed);
    if (PERCENT.has(leaf.key) && typed !== '' && Number.isFinite(percent)) text[leaf.key] = String(shareOf(percent));
    else if (LOCAL_TIMES.has(leaf.key) && typed !== '') text[leaf.key] = instantOf(typed, zone);
    // Text goes untrimmed: the API trims what it trims, and a voicemail message of spaces alone is none.
    else text[leaf.key] = leaf.kind === 'string' ? (values.fields[leaf.key] ?? '') : typed;
  }
  const body = bodyOfForm(SCALAR_LEAVES, text);
  // The name goes as typed, empty included, so the API's own words refuse it.
  body.name = text.name ?? '';

  const chosen = new Set(values.from_numbers);
  body.from_numbers = [...storedNumbers.filter((n) => chosen.has(n)), ...values.from_numbers.filter((n) => !storedNumbers.includes(n))];

  // Days with the same hours make one window, as the API's own default does (Mon-Fri 09:00-20:00).
  const windows = new Map<string, { days: string[]; start: string; end: string; rows: { day: string; index: number }[] }>();
  for (const day of DAYS) {
    (values.week[day] ?? []).forEach((range, index) => {
      const start = range.start.trim();
      const end = storedEnd(range.end.trim());
      const key = `${start}|${end}`;
      const window = windows.get(key) ?? { days: [], start, end, rows: [] };
      if (!window.days.includes(day)) window.days.push(day);
      window.rows.push({ day, index });
      windows.set(key, window);
    });
  }
  const schedule = (body.schedule ??= {}) as Record<string, unknown>;
  schedule.windows = [...windows.values()].map(({ days, start, end }) => ({ days, start, end }));

  const problems: FieldErrors = {};
  const variables = new Map<string, string>();
  values.variables.forEach((v, i) => {
    if (v.name === '') problems[`variable.${i}`] = 'Give this variable a name, or clear its value.';
    else if (variables.has(v.name)) problems[`variable.${i}`] = 'Another variable above has this name.';
    else variables.set(v.name, v.value);
  });
  body.variables = Object.fromEntries(variables);
  return { body, windowRows: [...windows.values()].map((w) => w.rows), problems };
}
