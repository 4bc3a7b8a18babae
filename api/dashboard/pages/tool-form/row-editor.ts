import { html, type Html } from '../../html.js';
import { errorLine } from './controls.js';

// Rows a person adds to and removes from a list (headers, arguments, values to collect). Without a script each row is
// a set of plain fields posted as `<name>[]`, with one spare row at the end to add one and a row cleared to remove it;
// with assets/row-editors.js the spare row becomes the pattern "Add" copies and each row gets a Remove button. A
// checkbox in a row posts its row's number (a checkbox left unticked posts nothing, so its position would be lost);
// the script renumbers rows as they come and go. The spare row is drawn even when the list is full: it is the
// script's pattern, and one row too many is the API's to refuse.

/** The words a row's controls are named by for a screen reader: "Header 2: Name". */
export const nthText = (noun: string, index: number): string => `${noun} ${index + 1}: `;

/** A control of a row, labelled by wrapping it: rows are copied by the script, and ids would repeat. */
export function cell(o: { noun: string; index: number; label: string; control: Html; className?: string }): Html {
  return html`<label class="cell${o.className ? ` ${o.className}` : ''}"><span class="cell-label"><span class="visually-hidden" data-nth="${o.noun} {n}: ">${nthText(o.noun, o.index)}</span>${o.label}</span>${o.control}</label>`;
}

/** A switch in a row: it posts the row's number when on. */
export function rowSwitch(o: { noun: string; index: number; name: string; label: string; on: boolean; disabled?: boolean }): Html {
  return html`<label class="check row-switch"><input type="checkbox" role="switch" class="switch" name="${o.name}" value="${o.index}" data-index${o.on ? html` checked` : ''}> <span><span class="visually-hidden" data-nth="${o.noun} {n}: ">${nthText(o.noun, o.index)}</span>${o.label}</span></label>`;
}

export function removeButton(noun: string, index: number): Html {
  return html`<button type="button" class="secondary remove" data-remove-row hidden>Remove<span class="visually-hidden" data-nth=" ${noun.toLowerCase()} {n}"> ${noun.toLowerCase()} ${index + 1}</span></button>`;
}

/** One row: its cells, its Remove button, and its refusal (`id` ties the refusal to the row for screen readers). */
export function editRow(o: { className: string; cells: Html; noun: string; index: number; spare: boolean; error?: string; id: string }): Html {
  return html`<div class="edit-row ${o.className}" data-row${o.spare ? html` data-spare` : ''}${o.error ? html` aria-describedby="${o.id}-error"` : ''}>${o.cells}${removeButton(o.noun, o.index)}${errorLine(o.id, o.error)}</div>`;
}

/** The rows of a list with its spare row, and the button the script shows to add one. */
export function rowEditor(o: { id: string; rows: Html[]; spare: Html; add: string; max?: number; head?: Html }): Html {
  return html`<div class="row-editor" id="${o.id}" data-rows${o.max !== undefined ? html` data-max="${o.max}"` : ''}>${o.head ?? ''}<div class="rows" data-row-list>${o.rows}${o.spare}</div>
<div class="actions tight"><button type="button" class="secondary" data-add-row hidden>${o.add}</button></div></div>`;
}
