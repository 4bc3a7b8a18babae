// Pages are TypeScript functions returning HTML built with the `html` tag: every interpolated value is escaped unless
// it is itself `Html` (made by this tag or `raw`), so a name, a transcript or an error message can never become markup.

import { escapeHtml } from '../../lib/markup.js';

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

export { escapeHtml };

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** Markup written by us, never by a user: inline JSON for a script, a constant snippet. */
export function raw(text: string): Html {
  return new Html(text);
}
