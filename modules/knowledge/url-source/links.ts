import { parseHTML } from 'linkedom';

/**
 * A page's URL as the crawl compares them: the fragment dropped (it names a place in the same page), the query kept
 * (it often selects another page), scheme and host lower-cased and a default port dropped (WHATWG URL parsing does
 * both). Null for anything but an absolute or relative http(s) URL.
 */
export function normalisePageUrl(href: string, base?: string | URL): string | null {
  let url: URL;
  try {
    url = base === undefined ? new URL(href) : new URL(href, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  // Credentials in a link would be sent to the site and shown in `pages`; such a link is not followed.
  if (url.username || url.password) return null;
  url.hash = '';
  return url.href;
}

/** Same scheme, host and port: the one site a crawl stays on. */
export function sameOrigin(a: string | URL, b: string | URL): boolean {
  return new URL(a).origin === new URL(b).origin;
}

// Links to these are never documents we read: not fetched at all, so a gallery or a downloads page costs nothing.
const NOT_DOCUMENTS = new Set([
  'png',
  'jpg',
  'jpeg',
  'gif',
  'webp',
  'avif',
  'svg',
  'ico',
  'bmp',
  'tif',
  'tiff',
  'heic',
  'mp3',
  'wav',
  'ogg',
  'oga',
  'flac',
  'm4a',
  'aac',
  'opus',
  'mp4',
  'm4v',
  'mov',
  'avi',
  'mkv',
  'webm',
  'wmv',
  'flv',
  'zip',
  'gz',
  'tgz',
  'bz2',
  'xz',
  '7z',
  'rar',
  'tar',
  'dmg',
  'iso',
  'exe',
  'msi',
  'apk',
  'deb',
  'rpm',
  'bin',
  'css',
  'js',
  'mjs',
  'map',
  'json',
  'xml',
  'rss',
  'atom',
  'woff',
  'woff2',
  'ttf',
  'otf',
  'eot',
  'doc',
  'xls',
  'xlsx',
  'ppt',
  'pptx',
  'odt',
  'ods',
  'odp',
  'rtf',
  'epub',
  'psd',
  'ai',
  'eps',
]);

/**
 * Whether a link may lead to a document: false when its path ends in an extension of a format we never read (images,
 * media, archives, scripts, office formats other than .docx). A path with another extension, or none, is fetched and
 * its Content-Type decides.
 */
export function mayBeDocument(url: string): boolean {
  const path = new URL(url).pathname;
  const match = /\.([a-z0-9]{1,8})$/i.exec(path);
  return !match || !NOT_DOCUMENTS.has(match[1]!.toLowerCase());
}

/**
 * What a crawl reads from an HTML page's raw markup: its `<title>` (whitespace collapsed; null when it has none) and its
 * http(s) links, normalised, in document order, each once: `<a href>` and `<area href>`, resolved against the page's
 * `<base href>` when it has one. Links marked `rel="nofollow"` are left out, as their author asked. Read from the raw
 * HTML because the readable content keeps only the article's links, not the navigation a crawl follows.
 */
export function readHtmlPage(html: string, pageUrl: string): { title: string | null; links: string[] } {
  const { document } = parseHTML(html);
  const title = (document.querySelector('title')?.textContent ?? '').replace(/\s+/g, ' ').trim() || null;
  let base: string = pageUrl;
  const baseHref = document.querySelector('base[href]')?.getAttribute('href');
  if (baseHref) base = normalisePageUrl(baseHref, pageUrl) ?? pageUrl;
  const links: string[] = [];
  const seen = new Set<string>();
  for (const anchor of document.querySelectorAll('a[href], area[href]')) {
    const rel = (anchor.getAttribute('rel') ?? '').toLowerCase().split(/\s+/);
    if (rel.includes('nofollow')) continue;
    const href = (anchor.getAttribute('href') ?? '').trim();
    if (!href) continue;
    const url = normalisePageUrl(href, base);
    if (url === null || seen.has(url)) continue;
    seen.add(url);
    links.push(url);
  }
  return { title, links };
}
