import robotsParserModule from 'robots-parser';
import { UrlSourceError } from './errors.js';
import { fetchResource, type ResourceRequest } from './http-fetch.js';
import { CRAWLER_USER_AGENT, MAX_ROBOTS_BYTES } from './options.js';

// A site's robots.txt, read as RFC 9309 says: a 2xx is parsed (its first 500 KiB), a 4xx means no rules (the site has
// none), and a 5xx or a failed request means the site cannot say, so nothing of it is crawled for now. Rules are for
// our product token (`KnowledgeFetcher`), else for `*`.

// The package's types declare an ES default export, but it is CommonJS whose module.exports is the function itself:
// under Node's ESM interop that function is the default import.
const robotsParser = robotsParserModule as unknown as (typeof robotsParserModule)['default'];

export interface RobotsRules {
  /** Null when the page may be fetched, else why not: a sentence for people. */
  refusal(url: string): string | null;
  /** A failure that is the site's to fix and passes (a 5xx, a timeout): worth trying again. */
  readonly retryable: boolean;
}

const ALLOW_ALL: RobotsRules = { refusal: () => null, retryable: false };

function disallowAll(origin: string, why: string): RobotsRules {
  return {
    refusal: () => `The robots.txt of ${origin} ${why}, so its pages are not crawled.`,
    retryable: true,
  };
}

export async function loadRobots(
  origin: string,
  request: Omit<ResourceRequest, 'url' | 'accept' | 'maxBytes' | 'truncate' | 'beforeRequest'>,
): Promise<RobotsRules> {
  const robotsUrl = new URL('/robots.txt', origin).href;
  let answer;
  try {
    answer = await fetchResource({ ...request, url: robotsUrl, accept: 'text/plain', maxBytes: MAX_ROBOTS_BYTES, truncate: true });
  } catch (error) {
    if (!(error instanceof UrlSourceError)) throw error;
    // A redirect to a private address, past five hops or to nowhere readable: the file is taken as unavailable (RFC
    // 9309 2.3.1.2), as a 4xx is. A network failure or a timeout is the site being unreachable.
    if (error.code === 'network' || error.code === 'timeout') return disallowAll(origin, 'could not be read');
    return ALLOW_ALL;
  }
  if (answer.status >= 500) return disallowAll(origin, `answered ${answer.status}`);
  if (answer.status < 200 || answer.status >= 300) return ALLOW_ALL;
  const robots = robotsParser(robotsUrl, answer.body.toString('utf8'));
  return {
    refusal(url: string) {
      // A URL of another origin is not this file's to judge; the parser answers undefined for it.
      return robots.isDisallowed(url, CRAWLER_USER_AGENT) === true ? `The robots.txt of ${origin} does not allow ${url} to be crawled.` : null;
    },
    retryable: false,
  };
}
