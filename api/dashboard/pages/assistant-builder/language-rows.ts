import { html, type Html } from '../../html.js';
import { postedText } from './fallback-rows.js';
import type { Field } from './sections.js';

// The other languages an assistant speaks, as rows: the language's code, its voice, its welcome. Rows post as
// `<key>.<row>.<part>` (form-body.ts reads them back in order, skipping rows with no code), so an error the API reports
// at `languages.<index>.<part>` lands on its row; spare rows appear one at a time with the page's script.

export const MAX_LANGUAGES = 10;
const PARTS = ['language', 'voice_id', 'welcome_message'] as const;
type Part = (typeof PARTS)[number];

const text = (v: unknown) => (typeof v === 'string' ? v : '');

export function languageRows(field: Field, value: unknown, errors: Record<string, string>, hint: Html | string, errorLine: Html | string): Html {
  const rows = (Array.isArray(value) ? value : []).slice(0, MAX_LANGUAGES) as Partial<Record<Part, unknown>>[];
  const blanks = MAX_LANGUAGES - rows.length;
  const all = [...rows, ...Array.from({ length: blanks }, () => ({}))];
  return html`<fieldset class="setting wide picker fallbacks" id="f-${field.key.replace(/\./g, '-')}"><legend>${field.label}</legend>${hint}
<ol class="fallback-rows">${all.map((row, i) => languageRow(field.key, i, row, errors, i > rows.length))}</ol>
${blanks > 1 ? html`<button type="button" class="secondary" data-add-spare hidden>Add a language</button>` : ''}${errorLine}</fieldset>`;
}

function languageRow(key: string, i: number, row: Partial<Record<Part, unknown>>, errors: Record<string, string>, spare: boolean): Html {
  const name = (part: Part) => `${key}.${i}.${part}`;
  const id = (part: Part) => `f-${key.replace(/\./g, '-')}-${i}-${part}`;
  const field = (part: Part, label: string, control: (attrs: Html) => Html) => {
    const error = errors[`${key}.${i}.${part}`];
    const attrs = html` id="${id(part)}" name="${name(part)}"${error ? html` aria-invalid="true" aria-describedby="${id(part)}-error"` : ''}`;
    // Each label names its row for a screen reader ("Language 2 voice"); the row's number is shown once, by its code.
    const named = part === 'language' ? html`${label}` : html`<span class="visually-hidden">Language ${i + 1} </span>${label}`;
    return html`<div class="setting${part === 'welcome_message' ? ' wide' : ''}"><label for="${id(part)}">${named}</label>${control(attrs)}${error ? html`<div class="error" id="${id(part)}-error">${error}</div>` : ''}</div>`;
  };
  return html`<li class="fallback-row"${spare ? html` hidden data-spare` : ''}><div class="settings">
${field('language', `Language ${i + 1}: code`, (attrs) => html`<input type="text"${attrs} value="${text(row.language)}" placeholder="es, fr, pt-BR" autocomplete="off">`)}
${field('voice_id', 'Voice', (attrs) => html`<input type="text"${attrs} value="${text(row.voice_id)}" placeholder="The main voice">`)}
${field('welcome_message', 'First message', (attrs) => html`<textarea class="prose" rows="2"${attrs} placeholder="The main first message">${text(row.welcome_message)}</textarea>`)}
</div></li>`;
}

/** The posted rows as the API's list: rows without a code dropped, empty voices and welcomes as null. */
export function languagesOfForm(key: string, form: Record<string, unknown>): Record<string, string | null>[] {
  const one = (name: string) => postedText(form, name);
  const out: Record<string, string | null>[] = [];
  for (let i = 0; i < MAX_LANGUAGES; i++) {
    const language = one(`${key}.${i}.language`);
    if (language === '') continue;
    out.push({ language, voice_id: one(`${key}.${i}.voice_id`) || null, welcome_message: one(`${key}.${i}.welcome_message`) || null });
  }
  return out;
}
