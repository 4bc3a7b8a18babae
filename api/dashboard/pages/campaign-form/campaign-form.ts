import type { FieldErrors } from '../../forms.js';
import { html, type Html } from '../../html.js';
import { bodyOfForm, schemaFields } from '../../schema-form.js';
import { aria, errorLine, idOf, Marks, numberRow, radioRow, section, switchRow, textRow } from './controls.js';
import { refusalNotice } from '../../form-marks.js';
import { SCALAR_LEAVES, type FormValues } from './form-fields.js';
import { assistantPicker, type CampaignChoices, numbersPicker } from './pickers.js';
import { retrySection } from './retry-rows.js';
import { scheduleSection } from './schedule-editor.js';
import { variablesSection } from './variable-rows.js';

// The campaign form, a section per decision: who calls and from where, when, how fast, how often again, what to do at
// an answering machine, when to stop by itself, and the values every call can use. Every setting of the API has a
// control here; one the API gains and this form does not name yet appears under "Other settings", as the schema form
// would draw it, so no setting is ever out of reach.

/** Settings drawn by a named control below (retries a row an outcome, whatever the outcomes); the rest fall to "Other settings". */
const NAMED = new Set([
  'name',
  'assistant_id',
  'number_rotation',
  'schedule.timezone',
  'schedule.use_contact_timezone',
  'schedule.start_at',
  'schedule.end_at',
  'pacing.max_concurrent_calls',
  'pacing.calls_per_minute',
  'pacing.org_share',
  'voicemail.detect',
  'voicemail.action',
  'voicemail.message',
  'circuit_breaker.enabled',
  'circuit_breaker.failure_ratio',
  'circuit_breaker.min_attempts',
]);
const RETRY = /^retry\.[a-z_]+\.(attempts|delay_minutes)$/;
export const OTHER_LEAVES = SCALAR_LEAVES.filter((l) => !NAMED.has(l.key) && !RETRY.test(l.key));
/** What a running campaign can change (the service refuses the rest with 409 until it is paused). */
const LIVE = new Set(['schedule', 'pacing']);

export interface CampaignFormOptions {
  values: FormValues;
  errors: FieldErrors;
  choices: CampaignChoices;
  action: string;
  submit: string;
  cancel: string;
  csrf: Html;
  /** A new campaign: its time zone starts as the browser's. */
  isNew: boolean;
  /** A running campaign: the sections it cannot change say so. */
  running: boolean;
}

function voicemailSection(values: FormValues, marks: Marks, note: Html | string): Html {
  const f = values.fields;
  const key = 'voicemail.message';
  const id = idOf(key);
  const error = marks.at(key);
  return section({
    id: 'voicemail',
    key: 'voicemail',
    title: 'Answering machines',
    intro: html`What happens when a machine, not a person, answers.${note}`,
    marks,
    body: html`<div class="settings">${switchRow({ key: 'voicemail.detect', label: 'Tell people from answering machines', value: f['voicemail.detect'] ?? '', marks, help: 'Listens to the first seconds of each answered call.' })}
${radioRow({
  key: 'voicemail.action',
  legend: 'On a machine',
  value: f['voicemail.action'] ?? '',
  marks,
  choices: [
    { value: 'hang_up', label: 'Hang up', help: 'the voicemail retry decides when to call again' },
    { value: 'leave_message', label: 'Leave a message', help: 'after the greeting, the message below' },
  ],
})}
<div class="setting wide"><label for="${id}">Message to leave</label><textarea class="prose" id="${id}" name="${key}" rows="3"${aria(id, true, error)}>${f[key] ?? ''}</textarea><span class="hint" id="${id}-hint">Spoken after the greeting when leaving a message. <code>{{var.name}}</code> is filled in; 2,000 characters at most.</span>${errorLine(id, error)}</div></div>`,
  });
}

export function campaignForm(o: CampaignFormOptions): Html {
  const marks = new Marks(o.errors);
  const f = o.values.fields;
  const frozen = (group: string) => (o.running && !LIVE.has(group) ? html` <strong>Pause the campaign to change these.</strong>` : '');

  const basics = section({
    id: 'basics',
    key: 'basics',
    title: 'Campaign',
    intro: html`Who calls, and from which numbers.${frozen('basics')}`,
    marks,
    body: html`<div class="settings">${textRow({ key: 'name', label: 'Name', value: f.name ?? '', marks, help: 'For your team; contacts never hear it.' })}
${assistantPicker(f.assistant_id ?? '', o.choices, marks)}
${numbersPicker(o.values.from_numbers, o.choices, marks)}
${radioRow({
  key: 'number_rotation',
  legend: 'Which number calls a contact',
  value: f.number_rotation ?? '',
  marks,
  choices: [
    { value: 'round_robin', label: 'Take turns', help: 'each call takes the next number' },
    { value: 'sticky', label: 'The same number every time', help: 'a contact always sees one number, so calling back reaches it' },
  ],
})}</div>`,
  });

  const pacing = section({
    id: 'pacing',
    key: 'pacing',
    title: 'Pace',
    intro: 'How fast contacts are called.',
    marks,
    body: html`<div class="settings">${numberRow({ key: 'pacing.max_concurrent_calls', label: 'Calls at once', unit: 'calls', value: f['pacing.max_concurrent_calls'] ?? '', marks })}
${numberRow({ key: 'pacing.calls_per_minute', label: 'New calls a minute, at most', unit: 'calls a minute', value: f['pacing.calls_per_minute'] ?? '', marks })}
${numberRow({ key: 'pacing.org_share', label: 'Share of the organisation’s lines', unit: '%', value: f['pacing.org_share'] ?? '', marks, help: 'All campaigns together, so callers coming in always find a free line' })}</div>`,
  });

  const breaker = section({
    id: 'circuit_breaker',
    key: 'circuit_breaker',
    title: 'Safety stop',
    intro: html`Pauses the campaign when most recent calls fail (a wrong trunk, a revoked key); busy and unanswered calls are not failures.${frozen('circuit_breaker')}`,
    marks,
    body: html`<div class="settings">${switchRow({ key: 'circuit_breaker.enabled', label: 'Pause when most calls fail', value: f['circuit_breaker.enabled'] ?? '', marks })}
${numberRow({ key: 'circuit_breaker.failure_ratio', label: 'Failed share that pauses it', unit: '%', value: f['circuit_breaker.failure_ratio'] ?? '', marks })}
${numberRow({ key: 'circuit_breaker.min_attempts', label: 'Recent calls looked at', unit: 'calls', value: f['circuit_breaker.min_attempts'] ?? '', marks, help: 'Also the fewest before it can pause' })}</div>`,
  });

  for (const leaf of OTHER_LEAVES) marks.at(leaf.key);
  const others =
    OTHER_LEAVES.length > 0
      ? html`<fieldset class="card campaign-section" id="other"><legend>Other settings</legend>${schemaFields(OTHER_LEAVES, bodyOfForm(OTHER_LEAVES, f), o.errors)}</fieldset>`
      : '';

  const sections = html`${basics}
${scheduleSection(o.values, marks, { browserZone: o.isNew, note: frozen('schedule') })}
${pacing}
${retrySection(o.values, marks, frozen('retry'))}
${voicemailSection(o.values, marks, frozen('voicemail'))}
${breaker}
${variablesSection(o.values, marks, frozen('variables'))}
${others}`;

  // Drawn after the sections, which have claimed their refusals: any left are listed here, so none goes unseen.
  const notice = refusalNotice(o.errors, marks);
  return html`${notice}
<form method="post" action="${o.action}" novalidate class="campaign-form" data-campaign-form>${o.csrf}
${sections}
<div class="actions save-bar"><button type="submit">${o.submit}</button><a href="${o.cancel}">Cancel</a></div>
</form>`;
}
