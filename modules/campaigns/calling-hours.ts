import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { timezones } from 'libphonenumber-geo-carrier';
import { DateTime } from 'luxon';
import { canonicalTimeZone } from '../contacts/index.js';
import type { Day } from './schemas.js';

// When a contact may be called: the campaign's windows read in the contact's own time zone. A zone comes from the
// contact's `timezone`, else from its phone number's area (libphonenumber's zone data: a US number in 415 is in
// America/Los_Angeles), else the campaign's. A number whose area spans several zones is called only when every one of
// them is inside a window, so nobody is rung at 08:00 because their neighbours' clock says 09:00. Local times are
// computed with luxon, which keeps daylight-saving gaps and overlaps right.

export interface CallingWindow {
  days: Day[];
  start: string;
  end: string;
}

const WEEKDAY: Record<number, Day> = { 1: 'mon', 2: 'tue', 3: 'wed', 4: 'thu', 5: 'fri', 6: 'sat', 7: 'sun' };
/** A window opens within a week; one more day covers a window that began yesterday. */
const DAYS_AHEAD = 8;

function at(day: DateTime, hhmm: string): DateTime {
  if (hhmm === '24:00') return day.plus({ days: 1 }).startOf('day');
  return day.set({ hour: Number(hhmm.slice(0, 2)), minute: Number(hhmm.slice(3)), second: 0, millisecond: 0 });
}

/** The first instant at or after `from` inside a window in `zone` (`from` itself when open); null when none is set. */
export function nextOpeningIn(from: Date, zone: string, windows: readonly CallingWindow[]): Date | null {
  const local = DateTime.fromJSDate(from, { zone });
  let best: number | null = null;
  for (let k = -1; k < DAYS_AHEAD; k++) {
    const day = local.startOf('day').plus({ days: k });
    const weekday = WEEKDAY[day.weekday]!;
    for (const window of windows) {
      if (!window.days.includes(weekday)) continue;
      const start = at(day, window.start).toMillis();
      const end = at(day, window.end).toMillis();
      if (end <= from.getTime() || end <= start) continue;
      const candidate = Math.max(start, from.getTime());
      if (best === null || candidate < best) best = candidate;
    }
    if (best !== null && best <= day.plus({ days: 1 }).toMillis()) break;
  }
  return best === null ? null : new Date(best);
}

/** The first instant at or after `from` open in every zone at once; null when none comes within a week. */
export function nextOpening(from: Date, zones: readonly string[], windows: readonly CallingWindow[]): Date | null {
  let t = from;
  // Each round moves to the latest of the zones' next openings; agreeing zones settle in one or two rounds.
  for (let round = 0; round < 16; round++) {
    const openings = zones.map((zone) => nextOpeningIn(t, zone, windows));
    if (openings.some((o) => o === null)) return null;
    const latest = Math.max(...openings.map((o) => o!.getTime()));
    if (openings.every((o) => o!.getTime() === latest)) return new Date(latest);
    if (latest - from.getTime() > DAYS_AHEAD * 86_400_000) return null;
    t = new Date(latest);
  }
  return null;
}

const numberZones = new Map<string, Promise<string[]>>();

/**
 * The zones of a phone number's area, as libphonenumber knows them; empty when it knows none. A lookup reads the
 * library's data files (about 3 ms), so it is cached by the number without its last four digits: zone data is by
 * country and area (at most country code, area code and exchange), never finer, and a campaign's contacts share areas.
 */
export function zonesOfNumber(phone: string): Promise<string[]> {
  const area = phone.slice(0, -4);
  let zones = numberZones.get(area);
  if (!zones) {
    zones = timezones(parsePhoneNumberFromString(phone))
      .then((found) => [...new Set((found ?? []).map((z) => canonicalTimeZone(z)).filter((z): z is string => z !== null))])
      .catch(() => []);
    if (numberZones.size > 100_000) numberZones.clear();
    numberZones.set(area, zones);
  }
  return zones;
}

/** The zones a contact's calling hours are read in. */
export async function contactZones(
  contact: { timezone: string | null; phoneNumber: string | null },
  schedule: { timezone: string; use_contact_timezone: boolean },
): Promise<string[]> {
  if (!schedule.use_contact_timezone) return [schedule.timezone];
  const own = contact.timezone ? canonicalTimeZone(contact.timezone) : null;
  if (own) return [own];
  const fromNumber = contact.phoneNumber ? await zonesOfNumber(contact.phoneNumber) : [];
  return fromNumber.length > 0 ? fromNumber : [schedule.timezone];
}
