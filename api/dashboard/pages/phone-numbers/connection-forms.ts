import type { z } from 'zod';
import { PhoneConnectionUpdate } from '../../../../modules/telephony/index.js';
import { field, type FieldErrors } from '../../forms.js';
import { html, type Html } from '../../html.js';
import { leavesOf } from '../../schema-form.js';
import type { Connection } from './directory.js';

// A connection's details as a person fills them in, one form a kind, so that neither kind's form holds a field the
// other uses (the API refuses those). The posted names are the API's, so its refusals land on the field they name.
// Secrets are write-only: an input to type a new one, and only "set" for one stored.

export type Kind = 'twilio' | 'sip';

interface Input {
  name: string;
  label: string;
  hint?: string;
  secret?: boolean;
  choices?: [value: string, label: string][];
}

interface KindForm {
  kind: Kind;
  title: string;
  intro: string;
  fields: Input[];
}

export const KIND_FORMS: KindForm[] = [
  {
    kind: 'twilio',
    title: 'Twilio account',
    intro: 'Twilio places and receives the calls and streams their audio here: nothing else to run.',
    fields: [
      { name: 'name', label: 'Name', hint: 'for your team, e.g. Main Twilio account' },
      { name: 'account_sid', label: 'Account SID', hint: 'AC and 32 letters and digits, on your Twilio console’s home page' },
      { name: 'auth_token', label: 'Auth token', hint: 'kept sealed and never shown again', secret: true },
    ],
  },
  {
    kind: 'sip',
    title: 'SIP trunk',
    intro: 'Any carrier’s SIP trunk, bridged by LiveKit SIP.',
    fields: [
      { name: 'name', label: 'Name', hint: 'for your team, e.g. Carrier trunk' },
      { name: 'sip_address', label: 'SIP server', hint: 'host or host:port, e.g. sip.carrier.example:5060' },
      {
        name: 'sip_transport',
        label: 'Transport',
        choices: [
          ['udp', 'UDP (usual)'],
          ['tcp', 'TCP'],
          ['tls', 'TLS (encrypted)'],
        ],
      },
      { name: 'username', label: 'Username', hint: 'if your carrier asks for one' },
      { name: 'password', label: 'Password', hint: 'kept sealed and never shown again', secret: true },
      { name: 'livekit_trunk_id', label: 'LiveKit trunk', hint: 'only for an outbound trunk already set up in LiveKit (ST_…)' },
    ],
  },
];

export function kindForm(kind: string): KindForm | undefined {
  return KIND_FORMS.find((k) => k.kind === kind);
}

export const kindTitle = (kind: string): string => kindForm(kind)?.title ?? kind;

/** The inputs of a kind's form; `stored` is the connection being changed, whose secrets are only said to be set. */
export function connectionInputs(
  kind: KindForm,
  o: { values: Record<string, unknown>; errors: FieldErrors | undefined; stored?: Connection | undefined },
): Html {
  return html`${kind.fields.map((input) => {
    const id = `f-${kind.kind}-${input.name}`;
    const value = o.values[input.name];
    const typed = typeof value === 'string' ? value : '';
    if (input.choices) {
      const error = o.errors?.[input.name];
      return html`<label for="${id}">${input.label}</label><select id="${id}" name="${input.name}"${error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}>${input.choices.map(
        ([v, label]) => html`<option value="${v}"${v === typed ? html` selected` : ''}>${label}</option>`,
      )}</select>${error ? html`<div class="error" id="${id}-error">${error}</div>` : ''}`;
    }
    const stored = o.stored ? (o.stored as unknown as Record<string, unknown>)[input.name] : undefined;
    const hint = input.secret && o.stored ? (stored !== null ? 'set; type a new one to replace it, or leave it empty to keep it' : 'not set') : input.hint;
    return field({
      name: input.name,
      label: input.label,
      type: input.secret ? 'password' : 'text',
      value: typed,
      errors: o.errors,
      ...(hint ? { hint } : {}),
      autocomplete: input.secret ? 'new-password' : 'off',
      form: kind.kind,
    });
  })}`;
}

const UPDATE_LEAVES = new Map(leavesOf((PhoneConnectionUpdate as unknown as z.ZodObject).shape as Record<string, z.ZodType>).map((l) => [l.key, l]));

/**
 * A posted form as the API's body for its kind. On a new connection an empty field is not given (the API then names
 * what it requires); on a stored one an empty secret is kept, an empty detail that may be none is cleared, and any
 * other emptied field is sent as it is, for the API to refuse at that field.
 */
export function connectionBody(kind: KindForm, form: Record<string, unknown>, editing: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const input of kind.fields) {
    const raw = form[input.name];
    if (typeof raw !== 'string') continue;
    if (raw !== '') body[input.name] = raw;
    else if (editing && !input.secret) body[input.name] = UPDATE_LEAVES.get(input.name)?.nullable ? null : raw;
  }
  return body;
}
