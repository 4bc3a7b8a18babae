import type { FieldErrors } from '../../forms.js';
import { html, type Html } from '../../html.js';
import {
  aria,
  type Choice,
  errorLine,
  idOf,
  Marks,
  numberRow,
  radioRow,
  refusalNotice,
  section,
  selectRow,
  switchRow,
  textAreaRow,
  textRow,
} from './controls.js';
import type { ToolFormValues } from './form-fields.js';
import { headersEditor, queryEditor } from './header-rows.js';
import { parametersEditor } from './parameter-rows.js';
import { defaultOf, HOLD_AUDIO_CHOICES, KINDS, maxLengthOf, METHODS, shownNumber, TRANSFER_MODES } from './schema-facts.js';

// The tool form, a card per decision: what the tool does (chosen first), what the model knows it by, the request it
// sends or the call's destination, the arguments the model passes, and what the caller hears meanwhile. With the page's
// script only the chosen kind's cards show; without it every card shows, each saying which kind it is for, and only
// the chosen kind's is read.

const KIND_WORDS: Record<string, { label: string; help: string }> = {
  http: { label: 'HTTP request', help: 'Calls your API with the arguments the model passes; the model reads the answer.' },
  transfer_call: { label: 'Transfer the call', help: 'Hands the caller over to a phone number or a SIP address.' },
  end_call: { label: 'End the call', help: 'Hangs up once the goodbye is said.' },
  send_dtmf: { label: 'Press keys', help: 'Plays keypad tones, to get through a phone menu.' },
  knowledge_search: { label: 'Search knowledge', help: 'Looks up the assistant’s documents for what the caller asks.' },
  mcp: { label: 'MCP server', help: 'Offers the tools of your MCP server; the model calls them and reads their answers.' },
};
/** A kind of tool in people's words: "HTTP request". */
export const kindLabel = (kind: string): string => KIND_WORDS[kind]?.label ?? kind.replace(/_/g, ' ');

const TRANSFER_WORDS: Record<string, { label: string; help: string }> = {
  cold: { label: 'Hand over at once', help: 'the caller goes straight through' },
  warm: {
    label: 'Brief the person first',
    help: 'the caller holds while the person is called and told who is calling and why; they press 1 to take the call, and if they do not, the caller is told and the conversation goes on (phone lines of carrier connections)',
  },
};
const HOLD_AUDIO_WORDS: Record<string, string> = { music: 'Music', tone: 'A soft tone every few seconds', none: 'Silence' };

/** What the notice calls a refused setting no control showed. */
const LABELS: Record<string, string> = {
  name: 'Name',
  type: 'Kind',
  http: 'Request',
  transfer: 'Transfer',
  mcp: 'MCP server',
  messages: 'Spoken messages',
  parameters: 'Arguments',
};
export const labelOfKey = (key: string): string => LABELS[key] ?? key.replace(/[._]/g, ' ');

export interface ToolFormOptions {
  values: ToolFormValues;
  errors: FieldErrors;
  /** The stored secret headers as the API masks them, by name. */
  masks: Record<string, string>;
  action: string;
  submit: string;
  csrf: Html;
}

const atMost = (key: string, what = 'characters') => {
  const max = maxLengthOf(key);
  return max === undefined ? '' : `${max.toLocaleString('en-GB')} ${what} at most.`;
};

function secondsHint(key: string, help: string): string {
  const [min, max, fallback] = [shownNumber(key, 'min'), shownNumber(key, 'max'), shownNumber(key, 'default')];
  return [help, fallback !== undefined ? `Default ${fallback} seconds` : '', min !== undefined && max !== undefined ? `${min} to ${max}` : '']
    .filter(Boolean)
    .join(' · ');
}

export function toolForm(o: ToolFormOptions): Html {
  const marks = new Marks(o.errors);
  const f = o.values.fields;
  const kind = f.type ?? '';
  const choices: Choice[] = KINDS.map((k) => ({ value: k, label: kindLabel(k), help: KIND_WORDS[k]?.help }));

  const kindSection = section({
    id: 'kind',
    title: 'What it does',
    intro: 'A tool lets the assistant act during a call. Choose first: the rest of the form follows.',
    marks,
    body: radioRow({ key: 'type', legend: 'Kind of tool', choices, value: kind, marks, className: 'kinds-choice' }),
  });

  const basics = section({
    id: 'basics',
    title: 'How the model knows it',
    intro: 'The model reads the name and the description to decide when to call the tool.',
    marks,
    body: html`<div class="settings">${textRow({ key: 'name', label: 'Name', value: f.name ?? '', marks, code: true, placeholder: 'lookup_order', help: 'Letters, digits, _ and -, starting with a letter; unique in the organisation.' })}
${textAreaRow({ key: 'description', label: 'What it does and when to use it', value: f.description ?? '', marks, rows: 3, help: `Written for the model. A built-in left empty gets one that says when to use it. ${atMost('description')}` })}
${switchRow({ key: 'enabled', label: 'Enabled', on: f.enabled !== 'false', marks, help: 'A disabled tool is not offered in calls, and cannot be given to an assistant or a playbook.' })}</div>`,
  });

  const methods: Choice[] = METHODS.map((m) => ({ value: m, label: m }));
  const request = section({
    id: 'request',
    key: 'http',
    kind: 'http',
    title: 'The request',
    intro: html`<span data-no-script>For an HTTP request tool. </span>Placeholders are filled in at each call: <code>{{args.name}}</code> an argument the model passes, <code>{{var.name}}</code> a call variable, <code>{{contact.field}}</code> the contact’s field.`,
    marks,
    body: html`<div class="settings"><div class="setting wide request-line">${selectRow({ key: 'http.method', label: 'Method', choices: methods, value: f['http.method'] ?? '', marks, help: `Default ${String(defaultOf('http.method'))}` })}
${textRow({ key: 'http.url', label: 'URL', value: f['http.url'] ?? '', marks, code: true, inputmode: 'url', placeholder: 'https://api.example.com/orders/{{args.number}}', help: 'http:// or https:// and the host written out; placeholders may fill the path and the query, never the host.' })}</div>
${headersEditor(o.values.headers, marks, o.masks)}
${queryEditor(o.values.query, marks)}
${textAreaRow({
  key: 'http.body',
  label: 'Body template',
  value: f['http.body'] ?? '',
  marks,
  kind: 'json',
  rows: 3,
  placeholder: '{"order": "{{args.number}}", "note": "Asked by {{contact.first_name}}"}',
  help: 'JSON. A text that is exactly one placeholder ("{{args.count}}") becomes that value with its type. Empty: the arguments the model passes are sent as the body (for POST, PUT and PATCH).',
})}
${numberRow({ key: 'http.timeout_ms', label: 'Give up after', unit: 'seconds', value: f['http.timeout_ms'] ?? '', marks, decimals: true, min: shownNumber('http.timeout_ms', 'min'), max: shownNumber('http.timeout_ms', 'max'), placeholder: String(shownNumber('http.timeout_ms', 'default') ?? ''), help: secondsHint('http.timeout_ms', 'The model is told the request took too long.') })}</div>`,
  });

  const parameters = section({
    id: 'parameters',
    kind: 'http',
    title: 'What the model passes',
    intro: html`<span data-no-script>For an HTTP request tool. </span>The arguments the model fills in when it calls the tool, each used as <code>{{args.name}}</code>. None: the tool takes no arguments. A built-in’s arguments are fixed.`,
    marks,
    body: parametersEditor({ rows: o.values.params, asJson: f.parameters_as_json === 'true', json: f.parameters ?? '', marks }),
  });

  const transfer = section({
    id: 'transfer',
    key: 'transfer',
    kind: 'transfer_call',
    title: 'Where the call goes',
    intro: html`<span data-no-script>For a transfer tool. </span>The caller is handed over here; the model never chooses the destination.`,
    marks,
    body: html`<div class="settings">${textRow({ key: 'transfer.destination', label: 'Destination', value: f['transfer.destination'] ?? '', marks, code: true, inputmode: 'tel', placeholder: '+14155550123', help: 'A phone number with its country code, or a SIP address (sip:desk@pbx.example.com).' })}
${radioRow({
  key: 'transfer.mode',
  legend: 'How the call is handed over',
  value: f['transfer.mode'] ?? '',
  marks,
  choices: TRANSFER_MODES.map((m) => ({
    value: m,
    label: TRANSFER_WORDS[m]?.label ?? m,
    help: `${TRANSFER_WORDS[m]?.help ?? ''}${m === defaultOf('transfer.mode') ? ' (default)' : ''}`,
  })),
})}
${textAreaRow({ key: 'transfer.handoff_message', label: 'Handoff message', value: f['transfer.handoff_message'] ?? '', marks, rows: 2, help: `Said to the caller before the transfer starts. ${atMost('transfer.handoff_message')}` })}
${textAreaRow({ key: 'transfer.briefing_prompt', label: 'Briefing instructions', value: f['transfer.briefing_prompt'] ?? '', marks, rows: 3, help: `Briefing first: how the summary said to the person is written from the call so far. Empty: who is calling and what they need, in two or three sentences. ${atMost('transfer.briefing_prompt')}` })}
${selectRow({ key: 'transfer.hold_audio', label: 'While the caller holds', choices: HOLD_AUDIO_CHOICES.map((c) => ({ value: c, label: HOLD_AUDIO_WORDS[c] ?? c })), value: f['transfer.hold_audio'] ?? '', marks, help: 'Briefing first: what the caller hears.' })}
${numberRow({ key: 'transfer.ring_timeout_s', label: 'Let it ring', unit: 'seconds', value: f['transfer.ring_timeout_s'] ?? '', marks, min: shownNumber('transfer.ring_timeout_s', 'min'), max: shownNumber('transfer.ring_timeout_s', 'max'), placeholder: String(shownNumber('transfer.ring_timeout_s', 'default') ?? ''), help: 'Briefing first: unanswered after this, the caller is taken back.' })}
${textAreaRow({ key: 'transfer.on_decline_message', label: 'When nobody takes the call', value: f['transfer.on_decline_message'] ?? '', marks, rows: 2, help: `Briefing first: said to the caller when the person declines, does not answer or is a voicemail. Empty: a sentence of ours. ${atMost('transfer.on_decline_message')}` })}</div>`,
  });

  const mcp = section({
    id: 'mcp',
    key: 'mcp',
    kind: 'mcp',
    title: 'The MCP server',
    intro: html`<span data-no-script>For an MCP server tool. </span>Its tools are offered to the model as <code>name_tool</code>, connected to as each call starts.`,
    marks,
    body: html`<div class="settings">${textRow({ key: 'mcp.url', label: 'Server URL', value: f['mcp.url'] ?? '', marks, code: true, wide: true, inputmode: 'url', placeholder: 'https://mcp.example.com/mcp', help: 'Its Streamable HTTP endpoint.' })}
${secretRow({ key: 'mcp.authorization', label: 'Authorization header', saved: o.masks.Authorization, marks })}
${textAreaRow({ key: 'mcp.tools', label: 'Tools offered', value: f['mcp.tools'] ?? '', marks, rows: 3, help: 'One tool name a line, as the server lists them. Empty: every tool it lists.' })}
${numberRow({ key: 'mcp.timeout_ms', label: 'Server timeout', unit: 'seconds', value: f['mcp.timeout_ms'] ?? '', marks, decimals: true, min: shownNumber('mcp.timeout_ms', 'min'), max: shownNumber('mcp.timeout_ms', 'max'), placeholder: String(shownNumber('mcp.timeout_ms', 'default') ?? ''), help: secondsHint('mcp.timeout_ms', 'Each tool call, and connecting.') })}</div>`,
  });

  const messages = section({
    id: 'messages',
    key: 'messages',
    title: 'What the caller hears',
    intro: `Said while the tool runs, so the line is never silent. Each is optional; ${atMost('messages.on_start')}`,
    marks,
    body: html`<div class="settings">${textRow({ key: 'messages.on_start', label: 'When it starts', value: f['messages.on_start'] ?? '', marks, wide: true, placeholder: 'Let me check that for you.', help: 'Not said over the caller.' })}
${textRow({ key: 'messages.on_slow', label: 'When it runs slow', value: f['messages.on_slow'] ?? '', marks, wide: true, placeholder: 'Still looking, one moment.' })}
${numberRow({ key: 'messages.slow_after_ms', label: 'Slow after', unit: 'seconds', value: f['messages.slow_after_ms'] ?? '', marks, decimals: true, min: shownNumber('messages.slow_after_ms', 'min'), max: shownNumber('messages.slow_after_ms', 'max'), placeholder: String(shownNumber('messages.slow_after_ms', 'default') ?? ''), help: secondsHint('messages.slow_after_ms', 'Said once, this long into the call.') })}
${textRow({ key: 'messages.on_failure', label: 'When it fails', value: f['messages.on_failure'] ?? '', marks, wide: true, placeholder: 'Sorry, I could not reach our system.', help: 'The model is told of the failure either way.' })}</div>`,
  });

  const sections = html`${kindSection}
${basics}
${request}
${parameters}
${transfer}
${mcp}
${messages}`;
  // Drawn after the sections, which have claimed their refusals: any left are listed, so none goes unseen.
  return html`${refusalNotice(o.errors, marks, labelOfKey)}
<form method="post" action="${o.action}" novalidate class="resource-form tool-form" data-tool-form>${o.csrf}
${sections}
<div class="actions save-bar"><button type="submit">${o.submit}</button><a href="/tools">Cancel</a></div>
</form>`;
}

/** A credential typed once and never shown again: empty keeps the saved one, whose mask the placeholder shows. */
function secretRow(o: { key: string; label: string; saved: string | undefined; marks: Marks }): Html {
  const id = idOf(o.key);
  const error = o.marks.at(o.key);
  const help = o.saved ? `Saved ${o.saved}: leave empty to keep it.` : 'Sent as typed, for example Bearer and a token; stored encrypted and never shown again.';
  return html`<div class="setting"><label for="${id}">${o.label}</label><input type="password" id="${id}" name="${o.key}" autocomplete="off" spellcheck="false" placeholder="${o.saved ? `Saved ${o.saved}` : 'Bearer …'}"${aria(id, true, error)}><span class="hint" id="${id}-hint">${help}</span>${errorLine(id, error)}</div>`;
}
