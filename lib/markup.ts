// Text put into markup, escaped once per language: HTML for the dashboard's pages, XML for documents the service
// writes for others (a carrier's TwiML). Both escape the five characters that can end a text or an attribute value.

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text as HTML element content or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/** Text as XML element content or a quoted attribute value, with numeric references any XML reader takes. */
export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
