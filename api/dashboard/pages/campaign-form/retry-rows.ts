import { html, type Html } from '../../html.js';
import { errorLine, idOf, type Marks, numberInput, section } from './controls.js';
import type { FormValues } from './form-fields.js';
import { defaultOf, LEAF, OUTCOMES } from './schema-facts.js';

// Retries as a table a person reads across: one row an outcome, saying what it means, how many more calls it gets and
// how long apart, with the API's default beside it. The outcomes are the schema's; one it gains gets a row by its name.

const OUTCOME: Record<string, { label: string; help: string }> = {
  busy: { label: 'Busy', help: 'The line was engaged.' },
  no_answer: { label: 'No answer', help: 'It rang out with nobody picking up.' },
  voicemail: { label: 'Voicemail', help: 'An answering machine picked up.' },
  failed: { label: 'Failed', help: 'The call could not be placed: a network or carrier error.' },
};

const labelOf = (outcome: string) => OUTCOME[outcome]?.label ?? outcome.replace(/_/g, ' ');

function defaultsInWords(outcome: string): string {
  const attempts = defaultOf(`retry.${outcome}.attempts`);
  const delay = defaultOf(`retry.${outcome}.delay_minutes`);
  if (attempts === undefined || delay === undefined) return '';
  return attempts === 0 ? 'Default: never again' : `Default: ${attempts} more, ${delay} min apart`;
}

function cell(key: string, label: string, unit: string, value: string, marks: Marks): Html {
  const id = idOf(key);
  return html`<div class="retry-cell"><div class="with-unit">${numberInput({ key, value, marks, label, hint: false })}<span class="unit">${unit}</span></div>${errorLine(id, marks.at(key))}</div>`;
}

/** The bounds every outcome shares, from the first outcome's settings. */
function boundsInWords(): string {
  const attempts = LEAF.get(`retry.${OUTCOMES[0]}.attempts`);
  const delay = LEAF.get(`retry.${OUTCOMES[0]}.delay_minutes`);
  if (attempts?.max === undefined || delay?.min === undefined || delay.max === undefined) return '';
  return ` Up to ${attempts.max} more calls, ${delay.min} to ${delay.max.toLocaleString('en-GB')} minutes apart.`;
}

export function retrySection(values: FormValues, marks: Marks, note?: Html | string): Html {
  const rows = OUTCOMES.map((outcome) => {
    const label = labelOf(outcome);
    const attempts = `retry.${outcome}.attempts`;
    const delay = `retry.${outcome}.delay_minutes`;
    return html`<div class="retry-row" role="row"><div class="retry-outcome" role="rowheader"><strong>${label}</strong><span class="hint">${OUTCOME[outcome]?.help ?? ''} ${defaultsInWords(outcome)}</span></div>
<div role="cell">${cell(attempts, `${label}: more calls`, 'more calls', values.fields[attempts] ?? '', marks)}</div>
<div role="cell">${cell(delay, `${label}: minutes before the next call`, 'min apart', values.fields[delay] ?? '', marks)}</div></div>`;
  });
  return section({
    id: 'retry',
    key: 'retry',
    title: 'Retries',
    intro: html`How many more times a contact is called after a call that ends each way, and how long after. An answered call is never retried; 0 never calls again. A retry also waits for the calling hours.${boundsInWords()}${note ? html` ${note}` : ''}`,
    marks,
    body: html`<div class="retry-table" role="table" aria-label="Retries by outcome"><div class="retry-row retry-head" role="row"><span role="columnheader">When a call ends</span><span role="columnheader">Calls again</span><span role="columnheader">Waiting</span></div>${rows}</div>`,
  });
}
