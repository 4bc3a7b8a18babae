import { describe, expect, it } from 'vitest';
import { contactZones, nextOpening, nextOpeningIn, zonesOfNumber } from './calling-hours.js';

const weekdays = [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'] as const, start: '09:00', end: '17:00' }].map((w) => ({ ...w, days: [...w.days] }));
const iso = (d: Date | null) => d?.toISOString() ?? null;

describe('calling hours', () => {
  it('is open now inside a window, read in the zone, and names the next opening outside it', () => {
    // Tuesday 2026-11-24 15:00 UTC is 10:00 in New York and 07:00 in Los Angeles.
    const now = new Date('2026-11-24T15:00:00Z');
    expect(iso(nextOpeningIn(now, 'America/New_York', weekdays))).toBe('2026-11-24T15:00:00.000Z');
    expect(iso(nextOpeningIn(now, 'America/Los_Angeles', weekdays))).toBe('2026-11-24T17:00:00.000Z');
    // Friday 17:30 in Paris: the next opening is Monday 09:00 there.
    expect(iso(nextOpeningIn(new Date('2026-11-27T16:30:00Z'), 'Europe/Paris', weekdays))).toBe('2026-11-30T08:00:00.000Z');
  });

  it('keeps local hours across daylight-saving changes', () => {
    // New York moves to EDT on Sunday 2027-03-14: 09:00 local is 14:00 UTC on the Friday before, 13:00 on the Monday after.
    expect(iso(nextOpeningIn(new Date('2027-03-12T12:00:00Z'), 'America/New_York', weekdays))).toBe('2027-03-12T14:00:00.000Z');
    expect(iso(nextOpeningIn(new Date('2027-03-13T12:00:00Z'), 'America/New_York', weekdays))).toBe('2027-03-15T13:00:00.000Z');
    // A window opening at 02:30 on the night the clocks skip 02:00-03:00 opens at 03:30 local (luxon moves a missing time forward).
    const night = [{ days: ['sun' as const], start: '02:30', end: '04:00' }];
    expect(iso(nextOpeningIn(new Date('2027-03-14T00:00:00Z'), 'America/New_York', night))).toBe('2027-03-14T07:30:00.000Z');
  });

  it('opens a window that ends at 24:00 until midnight, and finds none when there is none', () => {
    const evening = [{ days: ['tue' as const], start: '18:00', end: '24:00' }];
    expect(iso(nextOpeningIn(new Date('2026-11-24T22:59:00Z'), 'UTC', evening))).toBe('2026-11-24T22:59:00.000Z');
    expect(iso(nextOpeningIn(new Date('2026-11-25T00:00:00Z'), 'UTC', evening))).toBe('2026-12-01T18:00:00.000Z');
    expect(nextOpeningIn(new Date(), 'UTC', [])).toBeNull();
  });

  it('opens for a number spanning two zones only when both are inside the window', () => {
    const now = new Date('2026-11-24T14:30:00Z'); // 09:30 New York, 08:30 Chicago
    expect(iso(nextOpening(now, ['America/New_York', 'America/Chicago'], weekdays))).toBe('2026-11-24T15:00:00.000Z');
    expect(iso(nextOpening(now, ['America/New_York'], weekdays))).toBe('2026-11-24T14:30:00.000Z');
  });

  it("reads a contact's zone from its timezone, else its number's area, else the campaign's", async () => {
    const schedule = { timezone: 'Europe/Paris', use_contact_timezone: true };
    expect(await zonesOfNumber('+14155550123')).toEqual(['America/Los_Angeles']);
    expect(await contactZones({ timezone: 'Asia/Tokyo', phoneNumber: '+14155550123' }, schedule)).toEqual(['Asia/Tokyo']);
    expect(await contactZones({ timezone: null, phoneNumber: '+12125550123' }, schedule)).toEqual(['America/New_York']);
    expect(await contactZones({ timezone: null, phoneNumber: null }, schedule)).toEqual(['Europe/Paris']);
    expect(await contactZones({ timezone: 'Asia/Tokyo', phoneNumber: '+14155550123' }, { ...schedule, use_contact_timezone: false })).toEqual(['Europe/Paris']);
  });
});
