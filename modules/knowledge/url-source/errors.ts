// Why a URL source could not be fetched. The message is a sentence for people: the processing job stores it on the
// document's `error`. Retryability lives here, on the error, so the caller's refresh policy never parses messages.

export type UrlSourceErrorCode =
  | 'refused_target' // a private or local address, or a scheme other than http(s)
  | 'http_status' // the server answered with an error status, or redirected too often
  | 'timeout' // a request or the whole crawl ran out of time
  | 'too_large' // a page, or the pages together, over their byte limit
  | 'unsupported_type' // not a format documents are made from
  | 'network' // DNS, connection, TLS
  | 'robots'; // the site's robots.txt forbids the crawl, or could not be read

export class UrlSourceError extends Error {
  /** Worth trying again later: a network failure, a timeout, a 5xx, 408 or 429. */
  readonly retryable: boolean;
  /** The HTTP status behind an `http_status` error. */
  readonly status: number | null;

  constructor(
    readonly code: UrlSourceErrorCode,
    message: string,
    options: { retryable?: boolean; status?: number } = {},
  ) {
    super(message);
    this.name = 'UrlSourceError';
    this.retryable = options.retryable ?? (code === 'network' || code === 'timeout');
    this.status = options.status ?? null;
  }
}
