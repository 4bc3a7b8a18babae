import type { FieldErrors } from '../../forms.js';
import { html, type Html } from '../../html.js';
import { Marks, radioRow, refusalNotice, section, switchRow, textAreaRow, textRow } from '../tool-form/controls.js';
import { collectEditor } from './collect-rows.js';
import { examplesEditor } from './example-rows.js';
import type { PlaybookFormValues } from './form-fields.js';
import { atMost, DEFAULTS, maxOf, MODES } from './schema-facts.js';
import { type ToolChoice, toolPicker } from './tool-picker.js';

// The playbook form, a card per decision: when the assistant takes it, what it does (goal, steps, notes), how it
// talks (examples), what it may use (tools) and what it gathers (values to collect), and how it is taken.

const MODE_WORDS: Record<string, { label: string; help: string }> = {
  auto: { label: 'Decide by itself', help: 'part of the instructions when it is short, uses no tools and collects nothing; otherwise an agent of its own' },
  inline: { label: 'Part of the assistant’s instructions', help: 'its steps join the prompt; its tools are not offered' },
  handoff: { label: 'An agent of its own', help: 'the assistant hands the conversation to it, with its tools, and gets it back when it is done' },
};

const LABELS: Record<string, string> = {
  name: 'Name',
  instructions: 'Steps',
  examples: 'Examples',
  tool_ids: 'Tools',
  collect: 'Values to collect',
  mode: 'How it is taken',
};
const labelOfKey = (key: string) => LABELS[key] ?? key.replace(/[._]/g, ' ');

export interface PlaybookFormOptions {
  values: PlaybookFormValues;
  errors: FieldErrors;
  tools: readonly ToolChoice[];
  action: string;
  submit: string;
  csrf: Html;
}

export function playbookForm(o: PlaybookFormOptions): Html {
  const marks = new Marks(o.errors);
  const f = o.values.fields;

  const when = section({
    id: 'when',
    title: 'When to use it',
    intro: 'The assistant reads the description to decide when to take this playbook.',
    marks,
    body: html`<div class="settings">${textRow({ key: 'name', label: 'Name', value: f.name ?? '', marks, wide: true, placeholder: 'Order status', help: `Unique in the organisation; the handoff the model calls is named after it. ${atMost('name')}` })}
${textAreaRow({ key: 'description', label: 'When to use it', value: f.description ?? '', marks, rows: 2, placeholder: 'The caller asks where their order is, or when it arrives.', help: atMost('description') })}
${switchRow({ key: 'enabled', label: 'Enabled', on: f.enabled !== 'false', marks, help: 'A disabled playbook is never taken.' })}</div>`,
  });

  const steps = maxOf('instructions');
  const what = section({
    id: 'procedure',
    title: 'What it does',
    intro: 'The goal, then the steps in order.',
    marks,
    body: html`<div class="settings">${textAreaRow({ key: 'goal', label: 'Goal', value: f.goal ?? '', marks, rows: 2, placeholder: 'Tell the caller where their order is and when it arrives.', help: atMost('goal') })}
${textAreaRow({ key: 'instructions', label: 'Steps, one a line', value: f.instructions ?? '', marks, kind: 'lines', rows: 4, placeholder: 'Ask for the order number.\nLook the order up.\nSay where it is and when it arrives.', help: `In order; each line is a step${steps ? `, ${steps} at most` : ''}.` })}
${textAreaRow({ key: 'content', label: 'Notes', value: f.content ?? '', marks, rows: 3, help: `Anything else the assistant should know, given after the steps. ${atMost('content')}` })}</div>`,
  });

  const examples = section({
    id: 'examples',
    title: 'Examples',
    intro: 'Exchanges that show how a call with this playbook goes. Optional; the assistant follows their manner, not their words.',
    marks,
    body: html`<div class="settings">${examplesEditor(o.values.examples, marks)}</div>`,
  });

  const tools = section({
    id: 'tools',
    title: 'Tools',
    intro: 'What the playbook may do during the call.',
    marks,
    body: html`<div class="settings">${toolPicker(o.values.toolIds, o.tools, marks)}</div>`,
  });

  const collect = section({
    id: 'collect',
    title: 'Values to collect',
    intro: `What the playbook gathers from the caller, each saved as soon as it is given${maxOf('collect') ? `; ${maxOf('collect')} at most` : ''}. They are in the call’s record and its webhooks under the name they are saved as.`,
    marks,
    body: html`<div class="settings">${collectEditor(o.values.collect, marks)}</div>`,
  });

  const taken = section({
    id: 'mode',
    title: 'How it is taken',
    intro: 'Whether the playbook joins the assistant’s instructions or runs as an agent of its own.',
    marks,
    body: html`<div class="settings">${radioRow({
      key: 'mode',
      legend: 'Taken as',
      value: f.mode || String(DEFAULTS.mode ?? ''),
      marks,
      choices: MODES.map((m) => ({
        value: m,
        label: MODE_WORDS[m]?.label ?? m,
        help: `${MODE_WORDS[m]?.help ?? ''}${m === DEFAULTS.mode ? ' (default)' : ''}`,
      })),
    })}</div>`,
  });

  const sections = html`${when}
${what}
${examples}
${tools}
${collect}
${taken}`;
  return html`${refusalNotice(o.errors, marks, labelOfKey)}
<form method="post" action="${o.action}" novalidate class="resource-form playbook-form" data-playbook-form>${o.csrf}
${sections}
<div class="actions save-bar"><button type="submit">${o.submit}</button><a href="/playbooks">Cancel</a></div>
</form>`;
}
