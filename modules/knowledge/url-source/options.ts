import type http from 'node:http';
import type https from 'node:https';
import { MAX_DOCUMENT_BYTES } from '../schemas.js';

import { MAX_CRAWL_DEPTH, MAX_CRAWL_PAGES } from '../url-source-settings.js';

export { MAX_CRAWL_DEPTH, MAX_CRAWL_PAGES };

/** The name the fetcher gives itself, in its User-Agent and when it reads a site's robots.txt. */
export const CRAWLER_USER_AGENT = 'KnowledgeFetcher/1.0';

/**
 * 5 MiB for one page or file: a long web page is well under 1 MiB of HTML, and a manual as a PDF a few MiB. Half the
 * document limit, so one page cannot take a crawl's whole budget.
 */
export const DEFAULT_MAX_PAGE_BYTES = 5 * 1024 * 1024;
/** The bytes of every page fetched together, and of the Markdown made from them: the limit of any one document. */
export const DEFAULT_MAX_TOTAL_BYTES = MAX_DOCUMENT_BYTES;
/**
 * 15 s per page, its redirects included, as for a webhook delivery: a site answers in well under a second, a cold one
 * in a few; a slower one would hold the crawl for a minute over only four pages.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;
/**
 * 2 minutes for a whole crawl: 100 pages one after another at ~0.5 s each, with room for their conversion. A crawl
 * that runs out of time keeps the pages it has; the document's processing lease (2 minutes) is renewed by its caller.
 */
export const DEFAULT_CRAWL_TIMEOUT_MS = 120_000;
/** Redirects followed per page, each to an address checked again: browsers allow ~20, RFC 9309 asks five for robots.txt. */
export const MAX_REDIRECTS = 5;
/** RFC 9309: a crawler must read at least 500 KiB of a robots.txt; the rest is ignored. */
export const MAX_ROBOTS_BYTES = 500 * 1024;
/** Entries kept in `skipped`: enough to say what went wrong, bounded on a site with thousands of broken links. */
export const MAX_SKIPPED = 200;

export interface CrawlOptions {
  /** Pages fetched at most, the start page included; capped at MAX_CRAWL_PAGES (100). */
  max_pages: number;
  /** Links followed from the start page (0 is the start page alone); capped at MAX_CRAWL_DEPTH (3). */
  max_depth: number;
  /**
   * Only pages whose path (with its query) starts with one of these, e.g. `/help/`; all when absent or empty. A `*`
   * stands for any run of characters: `/docs/*\/faq` matches `/docs/v2/faq` and what is under it. The start page is
   * always fetched.
   */
  include?: string[] | undefined;
  /** Never pages whose path starts with one of these (same form as `include`); wins over `include`. */
  exclude?: string[] | undefined;
}

export interface UrlSourceLimits {
  /** Bytes of one page or file, as sent (after decompression). Default DEFAULT_MAX_PAGE_BYTES (5 MiB). */
  maxPageBytes: number;
  /** Bytes of all pages together, and of the joined Markdown. Default DEFAULT_MAX_TOTAL_BYTES (10 MiB). */
  maxTotalBytes: number;
  /** One page, its redirects included. Default DEFAULT_REQUEST_TIMEOUT_MS (15 s). */
  requestTimeoutMs: number;
  /** The whole fetch or crawl, conversion included. Default DEFAULT_CRAWL_TIMEOUT_MS (2 min). */
  crawlTimeoutMs: number;
}

export interface UrlSourceOptions {
  /** An http or https URL. */
  url: string;
  /** Follow same-site links from `url`; absent for the one page. */
  crawl?: CrawlOptions | undefined;
  /** Let requests reach loopback and private addresses: for tests and private deployments only. */
  allowPrivateTargets: boolean;
  signal?: AbortSignal | undefined;
  limits?: Partial<UrlSourceLimits> | undefined;
  /**
   * Connections to make requests through (an egress gateway); by default the fetch's own keep-alive agents, one
   * connection at a time. The target guard still checks every URL's host and passes its guarded lookup to the agent;
   * an agent that connects somewhere else of its own accord is the operator's choice. Agents given here are not closed.
   */
  agents?: { http?: http.Agent | undefined; https?: https.Agent | undefined } | undefined;
}

export function resolveLimits(limits: Partial<UrlSourceLimits> | undefined): UrlSourceLimits {
  return {
    maxPageBytes: limits?.maxPageBytes ?? DEFAULT_MAX_PAGE_BYTES,
    maxTotalBytes: limits?.maxTotalBytes ?? DEFAULT_MAX_TOTAL_BYTES,
    requestTimeoutMs: limits?.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    crawlTimeoutMs: limits?.crawlTimeoutMs ?? DEFAULT_CRAWL_TIMEOUT_MS,
  };
}

/** The crawl asked for, within the fetcher's own bounds; whole numbers, never negative. */
export function boundCrawl(crawl: CrawlOptions | undefined): Required<CrawlOptions> {
  const whole = (value: number, max: number, min: number) => (Number.isFinite(value) ? Math.min(Math.max(Math.floor(value), min), max) : min);
  return {
    max_pages: crawl ? whole(crawl.max_pages, MAX_CRAWL_PAGES, 1) : 1,
    max_depth: crawl ? whole(crawl.max_depth, MAX_CRAWL_DEPTH, 0) : 0,
    include: crawl?.include ?? [],
    exclude: crawl?.exclude ?? [],
  };
}

/** A byte count as people read it in a message: `10 MiB`, `7.8 KiB`, `512 bytes`. */
export function describeBytes(bytes: number): string {
  const [value, unit] = bytes >= 1024 * 1024 ? [bytes / (1024 * 1024), 'MiB'] : bytes >= 1024 ? [bytes / 1024, 'KiB'] : [bytes, 'bytes'];
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${unit}`;
}
