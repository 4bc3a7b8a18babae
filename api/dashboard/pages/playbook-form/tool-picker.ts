import { listTools } from '../../../../modules/tools/index.js';
import type { DashboardDeps } from '../../deps.js';
import { html, type Html } from '../../html.js';
import { aria, errorLine, idOf, type Marks } from '../tool-form/controls.js';
import { kindLabel } from '../tool-form/tool-form.js';
import { maxOf } from './schema-facts.js';

// The tools a playbook may use, ticked by name from the organisation's own (read through the same module call as the
// API's list). The form posts their ids; whether they are the organisation's is the service's to say, so an id of
// another organisation's tool typed into a request is refused at its box exactly as the API refuses it.

/** As many as a form can sensibly offer; a playbook takes far fewer. */
const MOST = 200;

export interface ToolChoice {
  id: number;
  name: string;
  type: string;
  enabled: boolean;
}

export async function toolChoices(deps: DashboardDeps, organizationId: number): Promise<ToolChoice[]> {
  const tools = await listTools(
    { db: deps.prisma, secrets: deps.secrets, policy: { allowPrivateTargets: deps.allowPrivateWebhookTargets } },
    organizationId,
    1,
    MOST,
  );
  return tools.data.map((t) => ({ id: t.id, name: t.name, type: t.type, enabled: t.enabled })).sort((a, b) => a.name.localeCompare(b.name));
}

/** The key a box's refusal is filed under: the id it posts. */
export const toolKey = (id: string): string => `tool_ids.${id}`;

export function toolPicker(chosen: readonly string[], choices: readonly ToolChoice[], marks: Marks): Html {
  const key = 'tool_ids';
  const id = idOf(key);
  const error = marks.at(key);
  const ticked = new Set(chosen);
  const known = new Set(choices.map((c) => String(c.id)));
  // An id ticked that is not the organisation's (deleted since, or sent by hand) is shown ticked, so it can be unticked.
  const others = chosen.filter((c) => !known.has(c)).map((c) => ({ value: c, name: `Unknown tool (${c})`, note: 'not one of this organisation’s tools' }));
  const boxes = [
    ...choices.map((c) => ({
      value: String(c.id),
      name: c.name,
      note: c.enabled ? kindLabel(c.type) : `${kindLabel(c.type)}, disabled: turn it on in its page to use it here`,
    })),
    ...others,
  ].map((c) => {
    const box = `${id}-${c.value.replace(/[^a-z0-9_-]/gi, '-')}`;
    const boxError = marks.at(toolKey(c.value));
    return html`<div class="check-row"><label class="check" for="${box}"><input type="checkbox" id="${box}" name="${key}" value="${c.value}"${ticked.has(c.value) ? html` checked` : ''}${aria(box, false, boxError)}> <span><span class="code-name">${c.name}</span>${c.note ? html` <span class="hint">${c.note}</span>` : ''}</span></label>${errorLine(box, boxError)}</div>`;
  });
  // The empty value says the list was in the form: none ticked is an empty list.
  const present = html`<input type="hidden" name="${key}" value="">`;
  const most = maxOf('tool_ids');
  const empty =
    choices.length === 0
      ? html`<p class="muted">No tools yet. <a href="/tools/new">Create a tool</a>: an HTTP request to your systems, a transfer, or a built-in.</p>`
      : '';
  return html`<fieldset class="setting wide picker tool-picker" id="${id}"${aria(id, true, error)}>${present}<legend>Tools it may use</legend><span class="hint" id="${id}-hint">Tick the organisation’s tools this playbook may call${most ? `, ${most} at most` : ''}; a disabled tool cannot be added.</span>${empty}<div class="choices">${boxes}</div>${errorLine(id, error)}</fieldset>`;
}
