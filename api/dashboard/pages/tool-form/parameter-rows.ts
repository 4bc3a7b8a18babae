import type { FieldErrors } from '../../forms.js';
import { html, type Html } from '../../html.js';
import { idOf, type Marks, switchRow, textAreaRow } from './controls.js';
import { cell, editRow, rowEditor, rowSwitch } from './row-editor.js';

// A tool's arguments, the JSON Schema the model fills in, as rows: a name, a type, what it is, whether the model must
// give it, and the values it may take. Rows say what most tools need; a schema they cannot say (nested objects, lists,
// formats, patterns, bounds) is edited as JSON instead, and a stored schema rows would lose any of is opened as JSON,
// so a save never drops part of it. When "Edit as JSON" is on, the JSON is what is saved and the rows are not read.

export interface ParamRow {
  name: string;
  type: string;
  description: string;
  required: boolean;
  /** The allowed values, one a line; empty for any value. */
  values: string;
}

/** The JSON Schema types a row can be, in people's words. */
export const PARAM_TYPES: readonly { value: string; label: string }[] = [
  { value: 'string', label: 'Text' },
  { value: 'number', label: 'Number' },
  { value: 'integer', label: 'Whole number' },
  { value: 'boolean', label: 'Yes or no' },
];
const TYPES = new Set(PARAM_TYPES.map((t) => t.value));
/** The types a list of allowed values applies to. */
const LISTED = new Set(['string', 'number', 'integer']);

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function allowedOf(type: string, values: unknown): string | null {
  if (values === undefined) return '';
  if (!Array.isArray(values) || values.length === 0 || !LISTED.has(type)) return null;
  const fits =
    type === 'string'
      ? values.every((v) => typeof v === 'string' && v !== '' && v.trim() === v && !v.includes('\n'))
      : values.every((v) => typeof v === 'number' && Number.isFinite(v) && (type === 'number' || Number.isInteger(v)));
  return fits ? values.map(String).join('\n') : null;
}

/** The rows `schema` is, or null when rows would lose some of it. */
export function rowsOfSchema(schema: unknown): ParamRow[] | null {
  if (!isRecord(schema) || schema.type !== 'object') return null;
  if (Object.keys(schema).some((k) => k !== 'type' && k !== 'properties' && k !== 'required')) return null;
  const properties = schema.properties ?? {};
  const required = schema.required ?? [];
  if (!isRecord(properties) || !Array.isArray(required)) return null;
  if (required.some((r) => typeof r !== 'string' || !(r in properties)) || new Set(required).size !== required.length) return null;
  const rows: ParamRow[] = [];
  for (const [name, property] of Object.entries(properties)) {
    if (!isRecord(property) || name.trim() !== name || name === '') return null;
    if (Object.keys(property).some((k) => k !== 'type' && k !== 'description' && k !== 'enum')) return null;
    const { type, description } = property;
    if (typeof type !== 'string' || !TYPES.has(type)) return null;
    if (description !== undefined && (typeof description !== 'string' || description.includes('\n'))) return null;
    const values = allowedOf(type, property.enum);
    if (values === null) return null;
    rows.push({ name, type, description: description ?? '', required: required.includes(name), values });
  }
  return rows;
}

/** The key a row's refusal is filed under: `param.2.name`. */
export const paramKey = (index: number, part: 'name' | 'type' | 'description' | 'values'): string => `param.${index}.${part}`;

/** The JSON Schema the rows say, and what only the form can refuse in them, at their row. */
export function schemaOfRows(rows: readonly ParamRow[]): { schema: Record<string, unknown>; problems: FieldErrors } {
  const problems: FieldErrors = {};
  const properties: Record<string, Record<string, unknown>> = {};
  const required: string[] = [];
  rows.forEach((row, i) => {
    if (row.name === '') {
      problems[paramKey(i, 'name')] = 'Give this argument a name, or clear the row.';
      return;
    }
    if (row.name in properties) {
      problems[paramKey(i, 'name')] = 'Another argument above has this name.';
      return;
    }
    const property: Record<string, unknown> = { type: row.type };
    if (row.description.trim() !== '') property.description = row.description.trim();
    const lines = row.values
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean);
    // Values are offered for text and numbers; a yes-or-no argument's are left unread (the page hides them).
    if (lines.length > 0 && LISTED.has(row.type)) {
      if (row.type === 'string') property.enum = lines;
      else {
        const wrong = lines.find((l) => !/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(l) || (row.type === 'integer' && !Number.isInteger(Number(l))));
        if (wrong !== undefined) problems[paramKey(i, 'values')] = `“${wrong}” is not a ${row.type === 'integer' ? 'whole number' : 'number'}.`;
        else property.enum = lines.map(Number);
      }
    }
    properties[row.name] = property;
    if (row.required) required.push(row.name);
  });
  const schema: Record<string, unknown> = { type: 'object', properties };
  if (required.length > 0) schema.required = required;
  return { schema, problems };
}

const typeLabel = new Map(PARAM_TYPES.map((t) => [t.value, t.label]));

function paramRow(row: ParamRow, index: number, marks: Marks, spare = false): Html {
  const noun = 'Argument';
  const claimed = spare ? undefined : marks.under(`param.${index}`);
  const id = idOf(`param.${index}`);
  const invalid = (part: string) => (claimed?.key === paramKey(index, part as 'name') ? html` aria-invalid="true" aria-describedby="${id}-error"` : '');
  const types = TYPES.has(row.type) || row.type === '' ? PARAM_TYPES : [...PARAM_TYPES, { value: row.type, label: row.type }];
  const cells = html`${cell({ noun, index, label: 'Name', className: 'name', control: html`<input type="text" name="param_name[]" value="${row.name}" class="code" autocomplete="off" spellcheck="false" placeholder="order_number"${invalid('name')}>` })}
${cell({
  noun,
  index,
  label: 'Type',
  className: 'type',
  control: html`<select name="param_type[]" data-row-type${invalid('type')}>${types.map((t) => html`<option value="${t.value}"${t.value === row.type ? html` selected` : ''}>${typeLabel.get(t.value) ?? t.label}</option>`)}</select>`,
})}
${rowSwitch({ noun, index, name: 'param_required[]', label: 'Required', on: row.required })}
${cell({ noun, index, label: 'What it is, for the model', className: 'description', control: html`<input type="text" name="param_description[]" value="${row.description}" placeholder="The order number the caller reads out"${invalid('description')}>` })}
<div class="allowed" data-shows-for="string number integer">${cell({
    noun,
    index,
    label: 'Allowed values, one a line',
    className: 'values',
    control: html`<textarea name="param_values[]" class="lines" rows="${Math.max(2, row.values.split('\n').length)}" placeholder="Empty: any value"${invalid('values')}>${row.values}</textarea>`,
  })}</div>`;
  return editRow({ className: 'param-row', cells, noun, index, spare, error: claimed?.message, id });
}

export function parametersEditor(o: { rows: ParamRow[]; asJson: boolean; json: string; marks: Marks }): Html {
  const rowsError = o.marks.at('parameters.rows');
  const jsonRefused = o.marks.at('parameters') !== undefined;
  const editor = rowEditor({
    id: 'f-param-rows',
    rows: o.rows.map((r, i) => paramRow(r, i, o.marks)),
    spare: paramRow({ name: '', type: 'string', description: '', required: false, values: '' }, o.rows.length, o.marks, true),
    add: 'Add an argument',
  });
  // The JSON area's own refusal is read by textAreaRow below; `at` above only asked whether there is one.
  return html`<div class="param-rows" data-param-rows>${rowsError ? html`<div class="error" id="f-param-rows-error">${rowsError}</div>` : ''}${editor}</div>
<details class="as-json" data-as-json${o.asJson || jsonRefused ? html` open` : ''}><summary>Edit as JSON Schema</summary>
<p class="hint">For what rows cannot say: nested objects, lists, formats, patterns, bounds. With this on, the JSON Schema below is what is saved and the rows are not read.</p>
${switchRow({ key: 'parameters_as_json', label: 'Use this JSON Schema instead of the rows', on: o.asJson, marks: o.marks })}
${textAreaRow({ key: 'parameters', label: 'Arguments as JSON Schema', value: o.json, marks: o.marks, kind: 'json', rows: 6, help: 'An object schema: {"type": "object", "properties": {...}, "required": [...]}.' })}
<p class="error" data-json-note hidden role="status"></p></details>`;
}
