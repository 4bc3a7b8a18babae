import { html, type Html } from '../../html.js';
import { aria, errorLine, type Marks, section } from './controls.js';
import type { FormValues, VariableRow } from './form-fields.js';

// The campaign's variables, `{{var.name}}` in every call's prompt, as rows of a name and a value. They post as
// `variable_name[]` and `variable_value[]`; a spare row at the end adds one without the page's script, and with it rows
// are added and removed by buttons (assets/campaign-form.js).

/** The key a row's refusal is filed under (a refusal at `variables.<name>` is moved to its row). */
export const variableKey = (index: number): string => `variable.${index}`;

function row(v: VariableRow, index: number, marks: Marks, spare = false): Html {
  const id = `v-${index}`;
  const error = spare ? undefined : marks.at(variableKey(index));
  const nth = index + 1;
  return html`<div class="variable"${spare ? html` data-spare` : ''} data-variable><input type="text" name="variable_name[]" value="${v.name}" aria-label="Variable ${nth} name" placeholder="name" autocomplete="off" spellcheck="false"${aria(id, false, error)}><input type="text" name="variable_value[]" value="${v.value}" aria-label="Variable ${nth} value" placeholder="value"${aria(id, false, error)}><button type="button" class="secondary remove" data-remove-variable hidden aria-label="Remove variable ${nth}">Remove</button>${errorLine(id, error)}</div>`;
}

export function variablesSection(values: FormValues, marks: Marks, note?: Html | string): Html {
  return section({
    id: 'variables',
    key: 'variables',
    title: 'Variables',
    intro: html`Values every call’s instructions can use as <code>{{var.name}}</code>. A contact’s own values, imported with it, take their place. Names are letters, digits and _.${note ? html` ${note}` : ''}`,
    marks,
    body: html`<div class="variables" data-variables>${values.variables.map((v, i) => row(v, i, marks))}${row({ name: '', value: '' }, values.variables.length, marks, true)}</div>
<div class="actions tight"><button type="button" class="secondary" data-add-variable hidden>Add a variable</button></div>`,
  });
}
