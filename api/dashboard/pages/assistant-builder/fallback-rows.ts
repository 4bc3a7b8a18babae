import { html, type Html } from '../../html.js';
import { LLM_CHOICES, type Field } from './sections.js';

// The fallback models as rows a person fills in, in the order they are tried: provider, model, server address, key.
// The API takes at most five. Rows post as `<key>.<row>.<part>` (form-body.ts reads them back in order, skipping rows
// left "Not used"), so an error the API reports at `<key>.<index>.<part>` lands on its row: after a refusal the rows
// are drawn from the list as posted, so row and index agree. A stored key is never sent to the page: its row shows that
// a key is saved, and carries the mask the API reads as "keep it".

export const MAX_FALLBACKS = 5;
const PARTS = ['provider', 'model', 'base_url', 'api_key'] as const;

interface FallbackValue {
  provider?: unknown;
  model?: unknown;
  base_url?: unknown;
  api_key?: unknown;
}

const text = (v: unknown) => (typeof v === 'string' ? v : '');

export function fallbackRows(field: Field, value: unknown, errors: Record<string, string>, hint: Html | string, errorLine: Html | string): Html {
  const rows = (Array.isArray(value) ? value : []).slice(0, MAX_FALLBACKS) as FallbackValue[];
  // One blank row to add a fallback; more appear one at a time with the page's script ("Add a fallback model").
  const blanks = MAX_FALLBACKS - rows.length;
  const all = [...rows, ...Array.from({ length: blanks }, () => ({}) as FallbackValue)];
  return html`<fieldset class="setting wide picker fallbacks" id="f-${field.key.replace(/\./g, '-')}" data-fallbacks><legend>${field.label}</legend>${hint}
<ol class="fallback-rows">${all.map((row, i) => fallbackRow(field.key, i, row, errors, i > rows.length))}</ol>
${blanks > 1 ? html`<button type="button" class="secondary" data-add-spare hidden>Add a fallback model</button>` : ''}${errorLine}</fieldset>`;
}

function fallbackRow(key: string, i: number, row: FallbackValue, errors: Record<string, string>, spare: boolean): Html {
  const name = (part: (typeof PARTS)[number]) => `${key}.${i}.${part}`;
  const id = (part: (typeof PARTS)[number]) => `f-${key.replace(/\./g, '-')}-${i}-${part}`;
  const errorAt = (part: (typeof PARTS)[number]) => errors[`${key}.${i}.${part}`];
  // Each label names its row for a screen reader ("Fallback 2 model"); the row's number is shown once, by its provider.
  const field = (part: (typeof PARTS)[number], label: string, control: Html) => {
    const error = errorAt(part);
    const named = part === 'provider' ? html`${label}` : html`<span class="visually-hidden">Fallback ${i + 1} </span>${label}`;
    return html`<div class="setting"><label for="${id(part)}">${named}</label>${control}${error ? html`<div class="error" id="${id(part)}-error">${error}</div>` : ''}</div>`;
  };
  const invalid = (part: (typeof PARTS)[number]) => (errorAt(part) ? html` aria-invalid="true" aria-describedby="${id(part)}-error"` : '');
  const provider = text(row.provider);
  const storedKey = text(row.api_key);
  return html`<li class="fallback-row"${spare ? html` hidden data-spare` : ''}><div class="settings">
${field(
  'provider',
  `Fallback ${i + 1}: provider`,
  html`<select id="${id('provider')}" name="${name('provider')}"${invalid('provider')}><option value=""${provider === '' ? html` selected` : ''}>Not used</option>${Object.entries(
    LLM_CHOICES,
  ).map(([v, label]) => html`<option value="${v}"${v === provider ? html` selected` : ''}>${label}</option>`)}</select>`,
)}
${field('model', 'Model', html`<input type="text" id="${id('model')}" name="${name('model')}" value="${text(row.model)}"${invalid('model')}>`)}
${field(
  'base_url',
  'Server address',
  html`<input type="text" inputmode="url" id="${id('base_url')}" name="${name('base_url')}" value="${text(row.base_url)}" placeholder="The vendor’s own"${invalid('base_url')}>`,
)}
${field(
  'api_key',
  'API key',
  html`<input type="password" autocomplete="off" id="${id('api_key')}" name="${name('api_key')}" placeholder="${storedKey ? `Saved key ${storedKey}` : 'Your organisation’s key'}"${invalid('api_key')}>${storedKey ? html`<span class="hint">Leave empty to keep the saved key.</span><input type="hidden" name="${name('api_key')}.kept" value="${storedKey}">` : ''}`,
)}
</div></li>`;
}

/** The posted rows as the API's list: rows left "Not used" dropped, a key left empty kept as the stored one's mask. */
export function fallbacksOfForm(key: string, form: Record<string, unknown>): Record<string, string | null>[] {
  const one = (name: string) => postedText(form, name);
  const out: Record<string, string | null>[] = [];
  for (let i = 0; i < MAX_FALLBACKS; i++) {
    const provider = one(`${key}.${i}.provider`);
    if (provider === '') continue;
    const typedKey = one(`${key}.${i}.api_key`);
    const keptKey = one(`${key}.${i}.api_key.kept`);
    out.push({
      provider,
      model: one(`${key}.${i}.model`) || null,
      base_url: one(`${key}.${i}.base_url`) || null,
      api_key: typedKey || keptKey || null,
    });
  }
  return out;
}

/** A posted field's first value, trimmed; '' when absent. */
export function postedText(form: Record<string, unknown>, name: string): string {
  const v = form[name];
  const s = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' ? s.trim() : '';
}
