import { DAYS } from './schema-facts.js';

// A week of calling hours in words, as a person checks them before saving: "Mon-Fri 09:00-17:00; Sat 10:00-14:00,
// Europe/Paris". The page's script says the same as the ranges are edited (assets/campaign-form.js, `describeWeek`),
// so both follow these rules: days with the same hours share one phrase, three days or more in a row are a span, a
// range ending at 00:00 ends at midnight (24:00), and a range the API would refuse is not described.

/** A range of one day as the form holds it: `HH:MM` text, an end of 00:00 meaning midnight. */
export interface Range {
  start: string;
  end: string;
}

const SHORT: Record<string, string> = { mon: 'Mon', tue: 'Tue', wed: 'Wed', thu: 'Thu', fri: 'Fri', sat: 'Sat', sun: 'Sun' };
const LONG: Record<string, string> = { mon: 'Monday', tue: 'Tuesday', wed: 'Wednesday', thu: 'Thursday', fri: 'Friday', sat: 'Saturday', sun: 'Sunday' };

export const dayName = (day: string): string => LONG[day] ?? day;
export const dayShort = (day: string): string => SHORT[day] ?? day;

const CLOCK = /^(([01]\d|2[0-3]):[0-5]\d|24:00)$/;
const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));

/** The end as the API stores it: 00:00 as an end is the midnight that closes the day. */
export const storedEnd = (end: string): string => (end === '00:00' ? '24:00' : end);

/** The ranges of a day the API would take, earliest first, each once. */
function validRanges(ranges: readonly Range[]): string[] {
  const ok = ranges
    .map((r) => ({ start: r.start.trim(), end: storedEnd(r.end.trim()) }))
    .filter((r) => CLOCK.test(r.start) && CLOCK.test(r.end) && minutes(r.end) > minutes(r.start))
    .sort((a, b) => minutes(a.start) - minutes(b.start) || minutes(a.end) - minutes(b.end))
    .map((r) => `${r.start}-${r.end}`);
  return [...new Set(ok)];
}

/** Days as spans: Mon-Fri, or Sat, Sun, or Mon, Wed. */
function daysInWords(days: string[]): string {
  const index = days.map((d) => DAYS.indexOf(d));
  const runs: number[][] = [];
  for (const i of index) {
    const run = runs.at(-1);
    if (run && run.at(-1)! + 1 === i) run.push(i);
    else runs.push([i]);
  }
  return runs
    .map((run) => (run.length >= 3 ? `${dayShort(DAYS[run[0]!]!)}-${dayShort(DAYS[run.at(-1)!]!)}` : run.map((i) => dayShort(DAYS[i]!)).join(', ')))
    .join(', ');
}

/** The hours of the week, without the zone; empty when no day has a range the API would take. */
export function hoursInWords(week: Readonly<Record<string, readonly Range[]>>): string {
  const byHours = new Map<string, string[]>();
  for (const day of DAYS) {
    const hours = validRanges(week[day] ?? []).join(' and ');
    if (hours) byHours.set(hours, [...(byHours.get(hours) ?? []), day]);
  }
  return [...byHours].map(([hours, days]) => `${daysInWords(days)} ${hours}`).join('; ');
}

/** The week and the zone it is read in, as the form's summary line says them. */
export function describeWeek(week: Readonly<Record<string, readonly Range[]>>, zone: string, contactZones: boolean): string {
  const hours = hoursInWords(week);
  if (!hours) return 'No calling hours yet: give at least one day a range.';
  return contactZones ? `${hours}, in each contact’s own time zone (${zone} when it is not known)` : `${hours}, ${zone}`;
}
