import { z } from 'zod';
import { int } from '../../lib/zod/int.js';

// How a URL source is followed and refreshed, as the API takes it and the row keeps it (documents.crawl). The fetcher
// (url-source/) holds to the same bounds, whatever a stored row asks: a crawl never runs away with a site.

/**
 * A crawl's bounds whatever it asks: 100 pages of a help centre or a product's docs fill a document's 10 MiB of
 * Markdown well before a site runs out; three links deep from a start page reaches what a visitor would.
 */
export const MAX_CRAWL_PAGES = 100;
export const MAX_CRAWL_DEPTH = 3;

/** A year: a refresh rarer than that is a new document. */
const MAX_REFRESH_HOURS = 8760;

export const CrawlSettings = z
  .strictObject({
    max_pages: int().min(1).max(MAX_CRAWL_PAGES).default(25).describe('Pages fetched at most, the start page included'),
    max_depth: int().min(0).max(MAX_CRAWL_DEPTH).default(1).describe('Links followed from the start page: 0 is the start page alone'),
    include: z.array(z.string().min(1).max(200)).max(20).default([]).describe('Only paths starting with one of these (e.g. `/help/`); all when empty'),
    exclude: z.array(z.string().min(1).max(200)).max(20).default([]).describe('Never paths starting with one of these'),
  })
  .meta({ id: 'CrawlSettings', description: 'Following same-site links from a URL source: same scheme, host and port only; robots.txt is honoured.' });
export type CrawlSettingsT = z.output<typeof CrawlSettings>;

export const refreshIntervalHours = int()
  .min(1)
  .max(MAX_REFRESH_HOURS)
  .nullable()
  .describe('Fetch the URL again this often (hours); null never. A refresh that finds the same text changes nothing');

/** An http(s) URL of at most 2,000 characters, without credentials: those would be stored and shown. */
export const sourceUrl = z
  .string()
  .max(2000)
  .superRefine((u, ctx) => {
    const parsed = URL.canParse(u) ? new URL(u) : undefined;
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '') {
      ctx.addIssue({ code: 'custom', message: 'Must be an http or https URL' });
    } else if (parsed.username !== '' || parsed.password !== '') {
      ctx.addIssue({ code: 'custom', message: 'A URL source cannot carry a user name or password' });
    }
  })
  .describe('An http or https page (or PDF, Word, Markdown, CSV, text file) to fetch');

/** The crawl a stored row asks for, in the fetcher's terms; undefined for the start page alone. */
export function crawlOf(stored: unknown): CrawlSettingsT | undefined {
  if (stored === null || stored === undefined) return undefined;
  const parsed = CrawlSettings.safeParse(stored);
  return parsed.success ? parsed.data : undefined;
}
