import type { Db } from '../../prisma/client.js';

// Names for the ids a chart is grouped by (assistants, campaigns, managed numbers), read for the series shown only.

type Key = Record<string, string | number | null>;

export async function labelsOf(db: Db, organizationId: number, keys: Key[]): Promise<(dimension: string, value: string | number | null) => string> {
  const ids = (dimension: string) => [...new Set(keys.map((k) => k[dimension]).filter((v): v is number => typeof v === 'number'))];
  const [assistants, campaigns, numbers] = await Promise.all([
    lookup(ids('assistant'), (id) => db.assistant.findMany({ where: { organizationId, id: { in: id } }, select: { id: true, name: true } })),
    lookup(ids('campaign'), (id) => db.campaign.findMany({ where: { organizationId, id: { in: id } }, select: { id: true, name: true } })),
    lookup(ids('phone_number'), (id) => db.phoneNumber.findMany({ where: { organizationId, id: { in: id } }, select: { id: true, number: true } })),
  ]);
  const names: Record<string, Map<number, string>> = {
    assistant: new Map(assistants.map((a) => [a.id, a.name])),
    campaign: new Map(campaigns.map((c) => [c.id, c.name])),
    phone_number: new Map(numbers.map((n) => [n.id, n.number])),
  };
  return (dimension, value) => {
    if (value === null) return 'none';
    if (typeof value === 'number') return names[dimension]?.get(value) ?? `${dimension} ${value}`;
    return value;
  };
}

async function lookup<T>(ids: number[], read: (ids: number[]) => Promise<T[]>): Promise<T[]> {
  return ids.length === 0 ? [] : read(ids);
}
