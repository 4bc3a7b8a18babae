import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { DocumentParseError } from './errors.js';
import { htmlToMarkdown } from './markdown.js';
import { decodeUtf8 } from './text.js';

// Readability's time grows much faster than the depth of the page (measured: 7 s for 1,000 nested elements, on a
// 2-core machine); real pages nest 20 to 60 deep. Deeper than this, the whole body is converted without it.
export const READABILITY_MAX_DEPTH = 200;
// Turndown walks the tree recursively, and past some thousands of levels the stack runs out: a page nested deeper than
// 1,000 levels (50 times a real page's depth) is refused.
export const HTML_MAX_DEPTH = 1_000;

interface TreeElement {
  parentNode: TreeElement | null;
}

/**
 * How deep elements nest, in one pass in document order (a parent comes before its children), with no recursion and
 * no per-node walk of children: a hostile page may nest 100,000 deep.
 */
function depthOf(document: { querySelectorAll(selector: string): Iterable<TreeElement> }): number {
  const depths = new Map<TreeElement, number>();
  let deepest = 0;
  for (const element of document.querySelectorAll('*')) {
    const depth = (element.parentNode ? (depths.get(element.parentNode) ?? 0) : 0) + 1;
    depths.set(element, depth);
    if (depth > deepest) deepest = depth;
  }
  return deepest;
}

// Never part of a page's text, and scripts and styles would put code in the answers.
const NOT_CONTENT = 'script, style, noscript, template, iframe, object, embed, svg, canvas';

/**
 * A web page's main content (Readability: the article without navigation, footers and sidebars) as Markdown, under its
 * title. When Readability finds no article (a short page, a list of links), the whole body is kept instead.
 */
export function htmlToMarkdownDocument(bytes: Buffer): string {
  let source = decodeUtf8(bytes, 'HTML file');
  // linkedom reads whole documents: a fragment (no <body>) would be put beside an empty body, so it is given one.
  if (!/<body[\s>]/i.test(source)) source = `<!doctype html><html><body>${source.replace(/<\/?html[^>]*>/gi, '')}</body></html>`;
  const { document } = parseHTML(source);
  const depth = depthOf(document as never);
  if (depth > HTML_MAX_DEPTH) {
    throw new DocumentParseError(
      'document_too_complex',
      `This web page nests its elements more than ${HTML_MAX_DEPTH} levels deep, far beyond any real page: it cannot be converted.`,
    );
  }
  for (const node of document.querySelectorAll(NOT_CONTENT)) node.remove();
  const bodyHtml: string = document.body?.innerHTML ?? document.documentElement?.innerHTML ?? '';

  let title = '';
  let contentHtml = bodyHtml;
  // Readability alters the document it reads; the body was taken above.
  const tooDeep = depth > READABILITY_MAX_DEPTH;
  const article = tooDeep ? null : new Readability(document as never, { charThreshold: 200 }).parse();
  if (article?.content && (article.textContent ?? '').trim()) {
    contentHtml = article.content;
    title = (article.title ?? '').trim();
  }
  const markdown = htmlToMarkdown(contentHtml).trim();
  if (!title || markdown.startsWith('#') || markdown.startsWith(title)) return markdown;
  return `# ${title.replace(/\s+/g, ' ')}\n\n${markdown}`;
}
