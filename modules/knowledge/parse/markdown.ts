import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';
import { gfm } from 'turndown-plugin-gfm';

let service: TurndownService | null = null;

/** One configured turndown for HTML of every source (DOCX through mammoth, web pages): ATX headings, `-` lists. */
function turndown(): TurndownService {
  if (service) return service;
  service = new TurndownService({
    headingStyle: 'atx',
    bulletListMarker: '-',
    codeBlockStyle: 'fenced',
    emDelimiter: '_',
  });
  // GitHub tables, strikethrough and task lists; a table with no header row is kept as HTML by the plugin.
  service.use(gfm);
  service.remove(['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'head']);
  // Images carry no text to retrieve; their alt text is kept when there is one.
  service.addRule('imageAlt', {
    filter: 'img',
    replacement: (_content, node) => {
      const alt = (node as { getAttribute(name: string): string | null }).getAttribute('alt')?.trim();
      return alt ? alt : '';
    },
  });
  // A cell is one line of a Markdown table: its paragraphs (mammoth wraps every cell's text in <p>) are joined with
  // spaces, and a pipe in the text is escaped so it does not end the cell.
  service.addRule('tableCellOneLine', {
    filter: ['th', 'td'],
    replacement: (content, node) => {
      const cell = node as unknown as { parentNode: { childNodes: ArrayLike<unknown> } };
      const first = Array.prototype.indexOf.call(cell.parentNode.childNodes, node) === 0;
      const text = content
        .replace(/\s*\n\s*/g, ' ')
        .trim()
        .replace(/(?<!\\)\|/g, '\\|');
      return `${first ? '| ' : ' '}${text} |`;
    },
  });
  return service;
}

interface Element {
  querySelectorAll(selector: string): Iterable<Element>;
  querySelector(selector: string): Element | null;
  ownerDocument: { createElement(name: string): Element };
  childNodes: ArrayLike<Element>;
  tagName: string;
  replaceWith(node: Element): void;
  append(...nodes: Element[]): void;
}

/**
 * The GFM table rule writes a Markdown table only for a table with a header row (<th> cells or <thead>), and keeps any
 * other table as raw HTML. Word documents seldom mark a header row, so a table without one takes its first row as the
 * header: in a document, that row almost always names the columns.
 */
function promoteHeaderRows(root: Element): void {
  for (const table of root.querySelectorAll('table')) {
    if (table.querySelector('th, thead')) continue;
    const firstRow = table.querySelector('tr');
    if (!firstRow) continue;
    for (const cell of Array.from(firstRow.childNodes)) {
      if (cell.tagName !== 'TD') continue;
      const th = table.ownerDocument.createElement('th');
      th.append(...Array.from(cell.childNodes));
      cell.replaceWith(th);
    }
  }
}

export function htmlToMarkdown(html: string): string {
  if (!/<table/i.test(html)) return turndown().turndown(html);
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  const body = document.body as unknown as Element & { innerHTML: string };
  promoteHeaderRows(body);
  // Turndown reads HTML with its own DOM (the GFM rules use `table.rows`, which linkedom lacks).
  return turndown().turndown(body.innerHTML);
}
