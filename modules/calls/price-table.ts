import type { Db } from '../../prisma/client.js';
import { DEFAULT_PRICES, PRICE_CURRENCY, PriceEntry } from './prices.js';

// An organisation's price table: the defaults with its overrides, which a call is costed with when it ends. The
// overrides are kept in the organisation's analytics settings, beside its charts' own state; only this file reads or
// writes them.

/** The organisation's overrides; none until it sets some. */
export async function loadPriceOverrides(db: Db, organizationId: number): Promise<PriceEntry[]> {
  const row = await db.analyticsSettings.findUnique({ where: { organizationId }, select: { prices: true } });
  // Written only through PriceOverrides; parsed again so a row from an older shape can never misprice a call.
  const parsed = PriceEntry.array().safeParse(row?.prices ?? []);
  return parsed.success ? parsed.data : [];
}

export async function getPriceTable(db: Db, organizationId: number) {
  return { currency: PRICE_CURRENCY, overrides: await loadPriceOverrides(db, organizationId), defaults: [...DEFAULT_PRICES] };
}

/** Replaces the organisation's overrides; calls already ended keep the cost they were given. */
export async function replacePriceOverrides(db: Db, organizationId: number, prices: PriceEntry[]) {
  await db.analyticsSettings.upsert({
    where: { organizationId },
    create: { organizationId, prices: prices as object[] },
    update: { prices: prices as object[] },
  });
  return getPriceTable(db, organizationId);
}
