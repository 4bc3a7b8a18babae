import { html, type Html } from '../../html.js';
import { idOf, type Marks } from '../tool-form/controls.js';
import { cell, editRow, rowEditor, rowSwitch } from '../tool-form/row-editor.js';
import { COLLECT_TYPES, maxOf } from './schema-facts.js';

// The values a playbook collects, a row each: the key it is saved under, its type, what it is (the model reads it),
// whether the playbook is finished without it, and for a choice its values, one a line. They post as `collect_<part>[]`;
// the required switch posts its row's number (row-editor.ts).

export interface CollectRow {
  name: string;
  type: string;
  description: string;
  required: boolean;
  /** A choice's values, one a line. */
  values: string;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'Text',
  number: 'Number',
  integer: 'Whole number',
  boolean: 'Yes or no',
  date: 'Date',
  enum: 'One of a list',
};
export const collectTypeLabel = (type: string): string => TYPE_WORDS[type] ?? type;

/** The type that takes a list of values. */
export const CHOICE_TYPE = 'enum';

export type CollectPart = 'name' | 'type' | 'description' | 'required' | 'values';
export const collectKey = (index: number, part: CollectPart): string => `collect.${index}.${part}`;

function collectRow(row: CollectRow, index: number, marks: Marks, spare = false): Html {
  const noun = 'Value';
  const claimed = spare ? undefined : marks.under(`collect.${index}`);
  const id = idOf(`collect.${index}`);
  const invalid = (part: CollectPart) => (claimed?.key === collectKey(index, part) ? html` aria-invalid="true" aria-describedby="${id}-error"` : '');
  const types = COLLECT_TYPES.includes(row.type) || row.type === '' ? COLLECT_TYPES : [...COLLECT_TYPES, row.type];
  const cells = html`${cell({ noun, index, label: 'Saved as', className: 'name', control: html`<input type="text" name="collect_name[]" value="${row.name}" class="code" autocomplete="off" spellcheck="false" placeholder="order_number"${invalid('name')}>` })}
${cell({
  noun,
  index,
  label: 'Type',
  className: 'type',
  control: html`<select name="collect_type[]" data-row-type${invalid('type')}>${types.map((t) => html`<option value="${t}"${t === row.type ? html` selected` : ''}>${collectTypeLabel(t)}</option>`)}</select>`,
})}
${rowSwitch({ noun, index, name: 'collect_required[]', label: 'Required', on: row.required })}
${cell({ noun, index, label: 'What it is, for the model', className: 'description', control: html`<input type="text" name="collect_description[]" value="${row.description}" placeholder="The number on the caller’s receipt"${invalid('description')}>` })}
<div class="allowed" data-shows-for="${CHOICE_TYPE}">${cell({
    noun,
    index,
    label: 'Its values, one a line (for “One of a list”)',
    className: 'values',
    control: html`<textarea name="collect_values[]" class="lines" rows="${Math.max(2, row.values.split('\n').length)}" placeholder="Gold\nSilver"${invalid('values')}>${row.values}</textarea>`,
  })}</div>`;
  return editRow({ className: 'param-row collect-row', cells, noun, index, spare, error: claimed?.message, id });
}

export function collectEditor(rows: CollectRow[], marks: Marks): Html {
  const error = marks.at('collect');
  return html`<div class="setting wide rows-setting">${error ? html`<div class="error" id="f-collect-error">${error}</div>` : ''}
${rowEditor({
  id: 'f-collect',
  rows: rows.map((r, i) => collectRow(r, i, marks)),
  spare: collectRow({ name: '', type: COLLECT_TYPES[0]!, description: '', required: false, values: '' }, rows.length, marks, true),
  add: 'Add a value',
  max: maxOf('collect'),
})}</div>`;
}
