export { UrlSourceError, type UrlSourceErrorCode } from './errors.js';
export { fetchUrlSource, type UrlSourcePage, type UrlSourceResult, type UrlSourceSkip } from './fetch-url-source.js';
export {
  CRAWLER_USER_AGENT,
  DEFAULT_CRAWL_TIMEOUT_MS,
  DEFAULT_MAX_PAGE_BYTES,
  DEFAULT_MAX_TOTAL_BYTES,
  DEFAULT_REQUEST_TIMEOUT_MS,
  MAX_CRAWL_DEPTH,
  MAX_CRAWL_PAGES,
  MAX_REDIRECTS,
  type CrawlOptions,
  type UrlSourceLimits,
  type UrlSourceOptions,
} from './options.js';
