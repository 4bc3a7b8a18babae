import { DateTime } from 'luxon';
import { ValidationFailed } from '../../lib/errors.js';
import type { Period, PeriodPreset, TimeBucket } from './schemas.js';

// A chart's period as two instants, read in its time zone: "today" in Tokyo is not today in Paris, and a day that
// daylight saving shortens or lengthens is still one day (23 or 25 hours).

export interface ResolvedPeriod {
  preset: PeriodPreset | null;
  from: DateTime;
  to: DateTime;
}

/** Buckets a chart may draw in one series: a year of days, two months of hours. */
export const MAX_BUCKETS = 1_500;

/** A bound as written: an instant with its offset, or a date, which is midnight in the time zone. */
function bound(text: string, zone: string): DateTime {
  return /^\d{4}-\d{2}-\d{2}$/.test(text) ? DateTime.fromISO(text, { zone }) : DateTime.fromISO(text, { setZone: true }).setZone(zone);
}

/** `toLoc` is where a `to` not after `from` is reported in a 422. */
export function resolvePeriod(period: Period, zone: string, now: Date, toLoc: (string | number)[]): ResolvedPeriod {
  if ('from' in period) {
    const from = bound(period.from, zone);
    const to = bound(period.to, zone);
    if (!(to > from)) throw new ValidationFailed([{ loc: toLoc, msg: 'Value should be after `from`', type: 'value_error' }]);
    return { preset: null, from, to };
  }
  const at = DateTime.fromJSDate(now, { zone });
  const today = at.startOf('day');
  const week = at.startOf('week');
  const month = at.startOf('month');
  const ranges: Record<PeriodPreset, [DateTime, DateTime]> = {
    today: [today, today.plus({ days: 1 })],
    yesterday: [today.minus({ days: 1 }), today],
    last_24_hours: [at.minus({ hours: 24 }), at],
    last_7_days: [today.minus({ days: 6 }), today.plus({ days: 1 })],
    last_30_days: [today.minus({ days: 29 }), today.plus({ days: 1 })],
    last_90_days: [today.minus({ days: 89 }), today.plus({ days: 1 })],
    this_week: [week, week.plus({ weeks: 1 })],
    last_week: [week.minus({ weeks: 1 }), week],
    this_month: [month, month.plus({ months: 1 })],
    last_month: [month.minus({ months: 1 }), month],
    this_year: [at.startOf('year'), at.startOf('year').plus({ years: 1 })],
  };
  const [from, to] = ranges[period.preset];
  return { preset: period.preset, from, to };
}

/** The starts of the buckets a period spans, in the time zone; refused past MAX_BUCKETS. */
export function bucketsOf(period: ResolvedPeriod, unit: TimeBucket, loc: (string | number)[]): DateTime[] {
  const starts: DateTime[] = [];
  for (let t = period.from.startOf(unit); t < period.to; t = t.plus({ [`${unit}s`]: 1 })) {
    if (starts.length === MAX_BUCKETS) {
      throw new ValidationFailed([
        { loc, msg: `The period holds more than ${MAX_BUCKETS} ${unit}s: choose a longer bucket or a shorter period`, type: 'value_error' },
      ]);
    }
    starts.push(t);
  }
  return starts;
}
