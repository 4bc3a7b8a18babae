import http from 'node:http';
import https from 'node:https';
import { DocumentParseError, PARSE_TIMEOUT_MS } from '../parse/index.js';
import { UrlSourceError } from './errors.js';
import { fetchResource, statusError, type FetchedResource } from './http-fetch.js';
import { mayBeDocument, normalisePageUrl, sameOrigin } from './links.js';
import { boundCrawl, describeBytes, MAX_SKIPPED, resolveLimits, type UrlSourceOptions } from './options.js';
import { limitConcurrency } from './concurrency.js';
import { convertPage, joinPages, pageSection, preparePage, refuseUnreadableType, type PageMarkdown } from './page-markdown.js';
import { pathFilter } from './path-filter.js';
import { loadRobots, type RobotsRules } from './robots.js';

export interface UrlSourcePage {
  /** Where the page was read from, after redirects. */
  url: string;
  title: string;
  /** Bytes of the page as sent (decompressed). */
  bytes: number;
  /** Links followed from the start page to reach it: 0 for the start page. */
  depth: number;
}

export interface UrlSourceSkip {
  url: string;
  /** Why it is not in the document: a sentence for people. */
  reason: string;
}

export interface UrlSourceResult {
  /** Every page under a heading of its own (`# Title (url)`), in the order fetched: breadth-first, by depth. */
  markdown: string;
  pages: UrlSourcePage[];
  /** Pages a crawl found but could not take (at most MAX_SKIPPED): refused by robots.txt, failed, unreadable. */
  skipped: UrlSourceSkip[];
  /** SHA-256 (hex) of `markdown`: a refresh with the same hash changed nothing. */
  sha256: string;
}

// Content types in the order a site should prefer to send them; anything is still accepted, and its type decides.
const ACCEPT =
  'text/html,application/xhtml+xml,application/pdf,application/vnd.openxmlformats-officedocument.wordprocessingml.document,text/markdown,text/csv,text/plain;q=0.9,*/*;q=0.1';
// Each conversion runs in a thread of its own (0.5-0.8 s for a web page on a 2-core machine, most of it the thread
// starting): two at once keep both cores busy while the crawl fetches the next pages, and the pages of a 100-page crawl
// are converted in well under its 2 minutes.
const PARALLEL_CONVERSIONS = 2;
// A conversion is never given less than this, even at the end of a crawl's time: less would fail pages that are fine.
const MIN_PARSE_TIMEOUT_MS = 1_000;

function startUrlOf(url: string): string {
  const start = normalisePageUrl(url);
  if (start === null) {
    throw new UrlSourceError('refused_target', `${url.slice(0, 200)} is not an http or https URL that can be fetched.`);
  }
  return start;
}

/**
 * A URL source as one Markdown document: the page (or file) at `url`, and with `crawl` the pages it links to on the
 * same site (scheme, host and port), breadth-first, up to `max_depth` links away and `max_pages` pages, as the site's
 * robots.txt allows. Every address reached, redirects included, passes the outbound target guard unless
 * `allowPrivateTargets`. robots.txt governs crawls, the start page included; one page without `crawl` is fetched as a
 * person asked for it, as a browser would, without reading robots.txt. Pages are fetched one at a time.
 *
 * The start page failing fails the whole: a `UrlSourceError`, or a `DocumentParseError` when its content cannot be
 * converted. A later page failing is listed in `skipped`. Cancelling `signal` rejects with its reason.
 */
export async function fetchUrlSource(options: UrlSourceOptions): Promise<UrlSourceResult> {
  const start = startUrlOf(options.url);
  options.signal?.throwIfAborted();
  const limits = resolveLimits(options.limits);
  const crawl = boundCrawl(options.crawl);
  const crawling = options.crawl !== undefined;
  const filter = pathFilter(crawl.include, crawl.exclude);

  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new UrlSourceError('timeout', `Fetching ${start} took longer than ${limits.crawlTimeoutMs / 1000} seconds.`)),
    limits.crawlTimeoutMs,
  );
  const startedAt = performance.now();
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  // One connection per scheme at a time: the crawl fetches one page after another, as a polite crawler does, and
  // keep-alive spares each page a new connection (and TLS handshake).
  const ownAgents = {
    http: options.agents?.http ? null : new http.Agent({ keepAlive: true, maxSockets: 1 }),
    https: options.agents?.https ? null : new https.Agent({ keepAlive: true, maxSockets: 1 }),
  };
  const agents = { http: options.agents?.http ?? ownAgents.http!, https: options.agents?.https ?? ownAgents.https! };

  const robotsByOrigin = new Map<string, Promise<RobotsRules>>();
  const robotsFor = (origin: string) => {
    let rules = robotsByOrigin.get(origin);
    if (!rules) {
      rules = loadRobots(origin, { allowPrivateTargets: options.allowPrivateTargets, timeoutMs: limits.requestTimeoutMs, agents, signal });
      robotsByOrigin.set(origin, rules);
    }
    return rules;
  };
  const checkRobots = async (url: string) => {
    if (!crawling) return;
    const rules = await robotsFor(new URL(url).origin);
    const refusal = rules.refusal(url);
    if (refusal !== null) throw new UrlSourceError('robots', refusal, { retryable: rules.retryable });
  };

  // The site is the start page's, after its redirects: http://example.com may well answer from https://www.example.com.
  let site = start;
  const queue: { url: string; depth: number }[] = [{ url: start, depth: 0 }];
  const seen = new Set([start]);
  const skipped: UrlSourceSkip[] = [];
  const skip = (url: string, reason: string) => {
    if (skipped.length < MAX_SKIPPED) skipped.push({ url, reason });
  };
  // Pages in the order fetched, each converting (or waiting to) while the crawl goes on: links are read from the raw
  // HTML, so the next pages never wait for a conversion.
  const taken: { url: string; depth: number; bytes: number; markdown: Promise<PageMarkdown> }[] = [];
  const converting = limitConcurrency(PARALLEL_CONVERSIONS);
  const parseTimeoutMs = () => Math.max(MIN_PARSE_TIMEOUT_MS, Math.min(PARSE_TIMEOUT_MS, limits.crawlTimeoutMs - (performance.now() - startedAt)));
  let requested = 0;
  let pageBytes = 0;

  async function takePage(url: string, depth: number, isStart: boolean): Promise<string[]> {
    await checkRobots(url);
    const budget = Math.min(limits.maxPageBytes, limits.maxTotalBytes - pageBytes);
    requested++;
    let resource: FetchedResource;
    try {
      resource = await fetchResource({
        url,
        accept: ACCEPT,
        allowPrivateTargets: options.allowPrivateTargets,
        timeoutMs: limits.requestTimeoutMs,
        maxBytes: budget,
        agents,
        signal,
        // A redirect is checked as a link is: robots.txt, and (past the start page) the same site.
        beforeRequest: async (target) => {
          if (target.href === url) return;
          if (!isStart && !sameOrigin(target, site)) {
            throw new UrlSourceError('refused_target', `${url} redirects to another site (${target.origin}), which the crawl does not follow.`);
          }
          await checkRobots(target.href);
        },
        checkType: refuseUnreadableType,
      });
    } catch (error) {
      if (error instanceof UrlSourceError && error.code === 'too_large' && budget < limits.maxPageBytes) {
        throw new UrlSourceError('too_large', `${url} would take the pages fetched past ${describeBytes(limits.maxTotalBytes)} together.`);
      }
      throw error;
    }
    if (resource.status < 200 || resource.status >= 300) throw statusError(resource.url, resource.status);
    const finalUrl = normalisePageUrl(resource.url) ?? resource.url;
    if (finalUrl !== url) {
      // Reached by a redirect: the page it lands on may have been taken already.
      if (!isStart && taken.some((page) => page.url === finalUrl)) return [];
      seen.add(finalUrl);
    }
    if (isStart) site = finalUrl;
    const prepared = preparePage({ url: finalUrl, contentType: resource.contentType, body: resource.body });
    pageBytes += resource.body.length;
    const convert = () => convertPage(prepared, finalUrl, parseTimeoutMs());
    // The start page is converted before anything else is fetched: when it cannot be read there is no document.
    const markdown = isStart ? Promise.resolve(await convert()) : converting(convert);
    // Its failure is read when the pages are joined; until then it must not count as unhandled.
    markdown.catch(() => undefined);
    taken.push({ url: finalUrl, depth, bytes: resource.body.length, markdown });
    return depth < crawl.max_depth ? prepared.links : [];
  }

  const pages: UrlSourcePage[] = [];
  const sections: string[] = [];
  try {
    while (queue.length > 0 && requested < crawl.max_pages) {
      const { url, depth } = queue.shift()!;
      const isStart = taken.length === 0 && depth === 0;
      let links: string[];
      try {
        signal.throwIfAborted();
        links = await takePage(url, depth, isStart);
      } catch (error) {
        if (options.signal?.aborted) throw options.signal.reason;
        if (isStart) throw deadline.signal.aborted ? deadline.signal.reason : error;
        if (deadline.signal.aborted) {
          skip(url, `The crawl ran out of its ${limits.crawlTimeoutMs / 1000} seconds before this page was read.`);
          break;
        }
        if (error instanceof UrlSourceError || error instanceof DocumentParseError) {
          skip(url, error.message);
          continue;
        }
        throw error;
      }
      for (const link of links) {
        if (seen.has(link) || !sameOrigin(link, site)) continue;
        seen.add(link);
        if (!filter.allows(link)) continue;
        if (!mayBeDocument(link)) {
          skip(link, `${link} is not a web page or a document that can be read.`);
          continue;
        }
        queue.push({ url: link, depth: depth + 1 });
      }
    }

    let markdownBytes = 0;
    for (const [index, page] of taken.entries()) {
      let converted: PageMarkdown;
      try {
        converted = await page.markdown;
      } catch (error) {
        if (error instanceof DocumentParseError) {
          skip(page.url, error.message);
          continue;
        }
        throw error;
      }
      options.signal?.throwIfAborted();
      const section = pageSection({ title: converted.title, url: page.url, markdown: converted.markdown });
      const sectionBytes = Buffer.byteLength(section, 'utf8');
      if (markdownBytes + sectionBytes > limits.maxTotalBytes) {
        if (index === 0) {
          throw new UrlSourceError(
            'too_large',
            `The text of ${page.url} is larger than ${describeBytes(limits.maxTotalBytes)}, the most one document may hold.`,
          );
        }
        skip(page.url, `The text of ${page.url} would take the document past ${describeBytes(limits.maxTotalBytes)}.`);
        continue;
      }
      markdownBytes += sectionBytes;
      sections.push(section);
      pages.push({ url: page.url, title: converted.title, bytes: page.bytes, depth: page.depth });
    }
  } finally {
    clearTimeout(timer);
    ownAgents.http?.destroy();
    ownAgents.https?.destroy();
  }
  return { ...joinPages(sections), pages, skipped };
}
