import { DateTime } from 'luxon';

// The time zones a campaign can be read in, as a list to pick from: the runtime's IANA zones (those the API takes),
// grouped by region, each with its offset from UTC now, so "Europe/Paris" is found by its name and checked by its
// hour. Offsets change with daylight saving, so the list is made again every hour rather than for every page: making
// it asks the runtime for 400-odd zones' offsets, a noticeable fraction of a second the first time.

export interface ZoneGroup {
  region: string;
  zones: { id: string; label: string }[];
}

const REMADE_AFTER_MS = 60 * 60 * 1000;
let cached: { at: number; groups: ZoneGroup[] } | undefined;

function offsetOf(zone: string, now: DateTime): string {
  const offset = now.setZone(zone).toFormat('ZZ');
  return offset === '+00:00' ? 'UTC' : `UTC${offset}`;
}

export function zoneGroups(now = DateTime.now()): ZoneGroup[] {
  if (cached && now.toMillis() - cached.at < REMADE_AFTER_MS && now.toMillis() >= cached.at) return cached.groups;
  const byRegion = new Map<string, ZoneGroup['zones']>();
  for (const id of Intl.supportedValuesOf('timeZone')) {
    const slash = id.indexOf('/');
    const region = slash > 0 ? id.slice(0, slash) : 'Other';
    byRegion.set(region, [...(byRegion.get(region) ?? []), { id, label: `${id.replace(/_/g, ' ')} (${offsetOf(id, now)})` }]);
  }
  const groups = [
    { region: 'Universal', zones: [{ id: 'UTC', label: 'UTC' }] },
    ...[...byRegion].sort(([a], [b]) => a.localeCompare(b)).map(([region, zones]) => ({ region, zones })),
  ];
  cached = { at: now.toMillis(), groups };
  return groups;
}

/** Whether the list offers this zone (a stored link such as US/Eastern is not in it, and is offered beside it). */
export function isListed(zone: string): boolean {
  return zoneGroups().some((g) => g.zones.some((z) => z.id === zone));
}
