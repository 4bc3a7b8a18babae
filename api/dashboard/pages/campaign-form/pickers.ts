import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { listAssistants } from '../../../../modules/assistants/index.js';
import { listPhoneNumbers } from '../../../../modules/telephony/index.js';
import type { DashboardDeps } from '../../deps.js';
import { html, type Html } from '../../html.js';
import { aria, errorLine, idOf, type Marks } from './controls.js';

// The assistant picked by name and the numbers to call from ticked by number and label, from the organisation's own
// (read through the same module calls as the API's lists). The form posts the assistant's id and the numbers
// themselves; whether they are the organisation's is the service's to say, so an id or a number of another
// organisation typed into a request is refused at its control exactly as the API refuses it.

/** As many as a form can sensibly offer; an organisation with more picks among the first by name. */
const MOST = 500;
/** Where an organisation's numbers are added. */
export const NUMBERS_PAGE = '/phone-numbers';

export interface CampaignChoices {
  assistants: { id: number; name: string; active: boolean }[];
  numbers: { number: string; label: string | null }[];
}

export async function campaignChoices(deps: DashboardDeps, organizationId: number): Promise<CampaignChoices> {
  const [assistants, numbers] = await Promise.all([
    listAssistants(deps.prisma, organizationId, 1, MOST, deps.secrets),
    listPhoneNumbers(deps.prisma, organizationId, 1, MOST),
  ]);
  return {
    assistants: assistants.data.map((a) => ({ id: a.id, name: a.name, active: a.is_active !== false })).sort((a, b) => a.name.localeCompare(b.name)),
    numbers: numbers.data.map((n) => ({ number: n.number, label: n.label })).sort((a, b) => a.number.localeCompare(b.number)),
  };
}

/** +14155550199 as people write it: +1 415 555 0199. */
export function numberInWords(number: string): string {
  return parsePhoneNumberFromString(number)?.formatInternational() ?? number;
}

export function assistantPicker(value: string, choices: CampaignChoices, marks: Marks): Html {
  const key = 'assistant_id';
  const id = idOf(key);
  const error = marks.at(key);
  if (choices.assistants.length === 0) {
    return html`<div class="setting"><span class="label" id="${id}">Assistant</span><p class="muted">No assistants yet. <a href="/assistants/new">Create an assistant</a>: it is the voice and the instructions of every call.</p>${errorLine(id, error)}</div>`;
  }
  return html`<div class="setting"><label for="${id}">Assistant</label><select id="${id}" name="${key}"${aria(id, true, error)}><option value="">Choose an assistant</option>${choices.assistants.map(
    (a) => html`<option value="${a.id}"${String(a.id) === value ? html` selected` : ''}>${a.name}${a.active ? '' : ' (takes no calls now)'}</option>`,
  )}</select><span class="hint" id="${id}-hint">Who talks on every call.</span>${errorLine(id, error)}</div>`;
}

export function numbersPicker(chosen: readonly string[], choices: CampaignChoices, marks: Marks): Html {
  const key = 'from_numbers';
  const id = idOf(key);
  const error = marks.at(key);
  const ticked = new Set(chosen);
  const managed = new Set(choices.numbers.map((n) => n.number));
  // A number ticked but not the organisation's (removed since, or sent by hand) is shown ticked, so it can be unticked.
  const others = chosen.filter((n) => !managed.has(n)).map((number) => ({ number, label: null, unmanaged: true }));
  const boxes = [...choices.numbers.map((n) => ({ ...n, unmanaged: false })), ...others].map((n) => {
    const box = `${id}-${n.number.replace(/\D/g, '')}`;
    const numberError = marks.at(`${key}.${n.number}`);
    return html`<div class="check-row"><label class="check" for="${box}"><input type="checkbox" id="${box}" name="${key}" value="${n.number}"${ticked.has(n.number) ? html` checked` : ''}${aria(box, false, numberError)}> <span><span class="phone">${numberInWords(n.number)}</span>${n.label ? html` <span class="hint">${n.label}</span>` : ''}${n.unmanaged ? html` <span class="hint">not one of this organisation’s numbers</span>` : ''}</span></label>${errorLine(box, numberError)}</div>`;
  });
  const empty =
    choices.numbers.length === 0
      ? html`<p class="muted">No phone numbers yet. <a href="${NUMBERS_PAGE}">Add a number</a> first: a campaign calls from the organisation’s own numbers.</p>`
      : '';
  return html`<fieldset class="setting wide picker from-numbers" id="${id}"${aria(id, true, error)}><legend>Call from</legend><span class="hint" id="${id}-hint">Tick one or more of the organisation’s numbers; contacts see one of them.</span>${empty}<div class="choices">${boxes}</div>${errorLine(id, error)}</fieldset>`;
}
