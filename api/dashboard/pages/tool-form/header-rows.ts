import { html, type Html } from '../../html.js';
import { idOf, type Marks } from './controls.js';
import { cell, editRow, rowEditor, rowSwitch } from './row-editor.js';

// A request's headers and query parameters as rows of a name and a value. A header can be secret (a credential:
// Authorization, X-Api-Key): the API stores it encrypted and never shows it again. Its row shows that a value is saved
// with the mask the API reads it with, and an empty field keeps it: the row carries the name the value was saved
// under (`header_kept[]`), and the page sends the API the mask it knows, which the API reads as "keep the stored one".

export interface HeaderRow {
  name: string;
  value: string;
  secret: boolean;
  /** The name of the stored secret this row stands for; empty for a header typed here. */
  kept: string;
}

export interface PairRow {
  name: string;
  value: string;
}

export const headerKey = (index: number, part: 'name' | 'value'): string => `header.${index}.${part}`;
export const queryKey = (index: number, part: 'name' | 'value'): string => `query.${index}.${part}`;

function invalidIf(claimed: { key: string } | undefined, key: string, id: string): Html {
  return claimed?.key === key ? html` aria-invalid="true" aria-describedby="${id}-error"` : html``;
}

function headerRow(row: HeaderRow, index: number, marks: Marks, masks: Record<string, string>, spare = false): Html {
  const noun = 'Header';
  const claimed = spare ? undefined : marks.under(`header.${index}`);
  const id = idOf(`header.${index}`);
  const mask = row.kept ? masks[row.kept] : undefined;
  // A secret's value goes in a password field: typed once, never read back from the server.
  const valueInput = html`<input type="${row.secret ? 'password' : 'text'}" name="header_value[]" value="${row.value}" autocomplete="off" spellcheck="false" data-secret-value placeholder="${mask ? `Saved ${mask}: empty keeps it` : row.secret ? 'The credential' : 'application/json, {{var.name}}…'}"${invalidIf(claimed, headerKey(index, 'value'), id)}>`;
  const cells = html`${cell({ noun, index, label: 'Name', className: 'name', control: html`<input type="text" name="header_name[]" value="${row.name}" class="code" autocomplete="off" spellcheck="false" placeholder="Authorization"${invalidIf(claimed, headerKey(index, 'name'), id)}>` })}
${cell({ noun, index, label: 'Value', className: 'value', control: valueInput })}<input type="hidden" name="header_kept[]" value="${mask ? row.kept : ''}">
${rowSwitch({ noun, index, name: 'header_secret[]', label: 'Secret', on: row.secret })}`;
  return editRow({ className: 'pair-row header-row', cells, noun, index, spare, error: claimed?.message, id });
}

function queryRow(row: PairRow, index: number, marks: Marks, spare = false): Html {
  const noun = 'Query parameter';
  const claimed = spare ? undefined : marks.under(`query.${index}`);
  const id = idOf(`query.${index}`);
  const cells = html`${cell({ noun, index, label: 'Name', className: 'name', control: html`<input type="text" name="query_name[]" value="${row.name}" class="code" autocomplete="off" spellcheck="false" placeholder="order"${invalidIf(claimed, queryKey(index, 'name'), id)}>` })}
${cell({ noun, index, label: 'Value', className: 'value', control: html`<input type="text" name="query_value[]" value="${row.value}" autocomplete="off" spellcheck="false" placeholder="{{args.number}}"${invalidIf(claimed, queryKey(index, 'value'), id)}>` })}`;
  return editRow({ className: 'pair-row query-row', cells, noun, index, spare, error: claimed?.message, id });
}

export function headersEditor(rows: HeaderRow[], marks: Marks, masks: Record<string, string>): Html {
  const error = marks.at('http.headers');
  return html`<div class="setting wide rows-setting"><h3 id="headers-title">Headers</h3><span class="hint">Sent with every request; values may hold <code>{{args.name}}</code>, <code>{{var.name}}</code> and <code>{{contact.field}}</code>. Turn on Secret for a credential (Authorization, X-Api-Key): it is stored encrypted, sent as typed (no placeholders), and never shown again.</span>${
    error ? html`<div class="error" id="f-headers-error">${error}</div>` : ''
  }
${rowEditor({
  id: 'f-headers',
  rows: rows.map((r, i) => headerRow(r, i, marks, masks)),
  spare: headerRow({ name: '', value: '', secret: false, kept: '' }, rows.length, marks, masks, true),
  add: 'Add a header',
})}</div>`;
}

export function queryEditor(rows: PairRow[], marks: Marks): Html {
  const error = marks.at('http.query');
  return html`<div class="setting wide rows-setting"><h3>Query parameters</h3><span class="hint">Added to the URL, each value encoded; values may hold placeholders as headers do.</span>${
    error ? html`<div class="error" id="f-query-error">${error}</div>` : ''
  }
${rowEditor({
  id: 'f-query',
  rows: rows.map((r, i) => queryRow(r, i, marks)),
  spare: queryRow({ name: '', value: '' }, rows.length, marks, true),
  add: 'Add a query parameter',
})}</div>`;
}
