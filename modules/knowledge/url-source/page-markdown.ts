import { createHash } from 'node:crypto';
import { TextDecoder } from 'node:util';
import { mediaTypeOf, toMarkdown, UnsupportedDocument } from '../parse/index.js';
import { UrlSourceError } from './errors.js';
import { readHtmlPage } from './links.js';

// Each fetched page or file becomes Markdown through the same conversion as an upload; the pages are then joined under
// one top-level heading each, naming the page, so every chunk carries its source page in its heading path.

export interface PageMarkdown {
  title: string;
  /** The page's own Markdown, its headings one level down, without the title heading it began with. */
  markdown: string;
}

/** The last segment of a URL's path, decoded: the file name `toMarkdown` reads an extension from. */
export function fileNameOf(url: string): string | null {
  const segment = new URL(url).pathname.split('/').pop() ?? '';
  try {
    return decodeURIComponent(segment) || null;
  } catch {
    return segment || null;
  }
}

function parameter(contentType: string | null, name: string): string | null {
  const match = new RegExp(`;\\s*${name}\\s*=\\s*"?([^";]+)"?`, 'i').exec(contentType ?? '');
  return match ? match[1]!.trim().toLowerCase() : null;
}

// HTML5: a page declares its encoding within its first 1,024 bytes, by <meta charset> or its http-equiv form.
const META_CHARSET = /<meta[^>]+charset\s*=\s*["']?\s*([a-z0-9_:.-]+)/i;

/**
 * Text in the encoding its server or page names, as UTF-8: the conversion reads UTF-8 only, and older sites still
 * serve windows-1252 or Shift_JIS. Bytes in an encoding nobody named, or one not known here, are passed on as they are.
 */
function asUtf8(bytes: Buffer, contentType: string | null, isHtml: boolean): Buffer {
  let charset = parameter(contentType, 'charset');
  if (!charset && isHtml) charset = META_CHARSET.exec(bytes.subarray(0, 1024).toString('latin1'))?.[1]?.toLowerCase() ?? null;
  if (!charset || charset === 'utf-8' || charset === 'utf8' || charset === 'us-ascii') return bytes;
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset);
  } catch {
    return bytes;
  }
  return Buffer.from(decoder.decode(bytes), 'utf8');
}

// Servers send .md and .csv files as text/plain (or as bytes): their extension says better what they are.
const TEXT_BY_EXTENSION = /\.(md|markdown|csv)$/i;
const GENERIC_TYPES = new Set(['text/plain', 'application/octet-stream', 'binary/octet-stream']);

function bareType(contentType: string | null): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** The type a fetched resource is converted as; a `UrlSourceError` (`unsupported_type`) for one we do not read. */
export function pageMediaType(url: string, contentType: string | null, bytes: Buffer): string {
  const filename = fileNameOf(url);
  const declared = bareType(contentType);
  const useExtension = GENERIC_TYPES.has(declared) && TEXT_BY_EXTENSION.test(filename ?? '');
  try {
    return mediaTypeOf(filename, useExtension ? null : declared || null, bytes);
  } catch (error) {
    if (!(error instanceof UnsupportedDocument)) throw error;
    throw new UrlSourceError(
      'unsupported_type',
      `${url} is ${declared ? `of type ${declared}` : 'of a type that could not be told'}, not a web page or a document that can be read (HTML, PDF, Word .docx, Markdown, plain text or CSV).`,
    );
  }
}

/**
 * Refuses a resource by its declared Content-Type before its body is read: a type that names a format we do not read.
 * A generic or missing type passes, for the extension or the bytes to decide.
 */
export function refuseUnreadableType(url: string, contentType: string | null): void {
  const declared = bareType(contentType);
  if (declared === '' || GENERIC_TYPES.has(declared)) return;
  pageMediaType(url, contentType, Buffer.alloc(0));
}

const ATX_HEADING = /^( {0,3})(#{1,6})(?=[ \t]|$)/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Every ATX heading one level deeper (a level-6 heading stays at 6), leaving fenced code as it is. */
export function demoteHeadings(markdown: string): string {
  let fence: string | null = null;
  return markdown
    .split('\n')
    .map((line) => {
      const opening = FENCE.exec(line);
      if (fence !== null) {
        if (opening && opening[1]![0] === fence[0] && opening[1]!.length >= fence.length) fence = null;
        return line;
      }
      if (opening) {
        fence = opening[1]!;
        return line;
      }
      return line.replace(ATX_HEADING, (_, indent: string, hashes: string) => `${indent}${hashes.length < 6 ? `${hashes}#` : hashes}`);
    })
    .join('\n');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 200);
}

/**
 * A page's title and its Markdown, ready to sit under a heading of its own: the title is the heading the conversion
 * began with (an HTML page's article title, a Markdown file's first heading), else `fallbackTitle` (an HTML `<title>`),
 * else the file name or the URL; that first heading is dropped, since the page's own heading names it.
 */
export function shapePage(markdown: string, url: string, fallbackTitle: string | null): PageMarkdown {
  let body = markdown.trim();
  let title: string | null = null;
  const first = /^# +(.+?)(?: +#+)? *(?:\n|$)/.exec(body);
  if (first) {
    title = oneLine(first[1]!);
    body = body.slice(first[0].length).trim();
  }
  title ||= (fallbackTitle && oneLine(fallbackTitle)) || fileNameOf(url) || url;
  return { title, markdown: demoteHeadings(body) };
}

export interface PreparedPage {
  mediaType: string;
  /** The body, text in UTF-8. */
  bytes: Buffer;
  /** An HTML page's `<title>`. */
  htmlTitle: string | null;
  /** An HTML page's links, read from its raw markup. */
  links: string[];
}

/**
 * What a fetched resource is, its text in UTF-8, and an HTML page's title and links: all the crawl needs to go on
 * while the page is converted. A `UrlSourceError` for a type we do not read.
 */
export function preparePage(resource: { url: string; contentType: string | null; body: Buffer }): PreparedPage {
  const mediaType = pageMediaType(resource.url, resource.contentType, resource.body);
  const isHtml = mediaType === 'text/html';
  const bytes = mediaType.startsWith('text/') ? asUtf8(resource.body, resource.contentType, isHtml) : resource.body;
  const html = isHtml ? readHtmlPage(bytes.toString('utf8'), resource.url) : { title: null, links: [] };
  return { mediaType, bytes, htmlTitle: html.title, links: html.links };
}

/** A prepared page as Markdown under its title; a `DocumentParseError` when its content cannot be converted. */
export async function convertPage(page: PreparedPage, url: string, timeoutMs: number): Promise<PageMarkdown> {
  const markdown = await toMarkdown({ bytes: page.bytes, mediaType: page.mediaType, filename: fileNameOf(url) }, { timeoutMs });
  return shapePage(markdown, url, page.htmlTitle);
}

/** The heading a page sits under: its title and where it came from. */
export function pageHeading(page: { title: string; url: string }): string {
  return page.title === page.url ? `# ${page.url}` : `# ${page.title} (${page.url})`;
}

/** One page's section of the joined document. */
export function pageSection(page: { title: string; url: string; markdown: string }): string {
  return page.markdown ? `${pageHeading(page)}\n\n${page.markdown}\n` : `${pageHeading(page)}\n`;
}

/** The pages as one Markdown document, in the order they were fetched, and its SHA-256 (hex). */
export function joinPages(sections: string[]): { markdown: string; sha256: string } {
  const markdown = sections.join('\n');
  return { markdown, sha256: createHash('sha256').update(markdown, 'utf8').digest('hex') };
}
