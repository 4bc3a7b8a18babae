import type { ToolOut } from '../../../../modules/tools/index.js';
import type { FieldErrors } from '../../forms.js';
import { headerKey, type HeaderRow, type PairRow, queryKey } from './header-rows.js';
import { type ParamRow, rowsOfSchema, schemaOfRows } from './parameter-rows.js';
import { defaultOf, KINDS, NO_PARAMETERS, secondsOf } from './schema-facts.js';

// The tool form's fields as a person types them, and the API's body they mean. The form posts plain fields, so it
// works without a script: each setting under its API path (`http.url`), times in seconds under the path of their
// milliseconds, headers, query parameters and arguments as `<row>_<part>[]`. Only the chosen kind's request or
// transfer goes into the body: the API refuses a config a kind has no use for.

export interface ToolFormValues {
  /** Each single setting by its API path, as typed: switches `true`/`false`, times in seconds. */
  fields: Record<string, string>;
  headers: HeaderRow[];
  query: PairRow[];
  params: ParamRow[];
}

export interface ToolFormBody {
  body: Record<string, unknown>;
  /** Refusals only the form can make (a header without a name, a secret without its value), at their row. */
  problems: FieldErrors;
}

/** The single settings, read as text; the switches are read by their last posted value. */
const TEXT_FIELDS = [
  'name',
  'description',
  'type',
  'http.method',
  'http.url',
  'http.body',
  'http.timeout_ms',
  'transfer.destination',
  'transfer.mode',
  'transfer.handoff_message',
  'transfer.briefing_prompt',
  'transfer.hold_audio',
  'transfer.ring_timeout_s',
  'transfer.on_decline_message',
  'mcp.url',
  'mcp.authorization',
  'mcp.timeout_ms',
  'mcp.tools',
  'messages.on_start',
  'messages.on_slow',
  'messages.slow_after_ms',
  'messages.on_failure',
  'parameters',
] as const;
const SWITCHES = ['enabled', 'parameters_as_json'] as const;

// A posted field is a string, a list of strings when repeated, or (from a hand-made request) anything at all.
const texts = (v: unknown): string[] => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
const first = (v: unknown): string => texts(v)[0] ?? '';
/** A switch posts its hidden "false" and then "true" when on: the last one counts. */
const lastOf = (v: unknown): string => texts(v).at(-1) ?? '';

function shownSeconds(key: string, ms: number | undefined): string {
  const value = ms ?? defaultOf(key);
  return typeof value === 'number' ? secondsOf(value) : '';
}

/** The form filled from a stored tool, or from the schema's defaults for a new one. */
export function valuesOfTool(tool: ToolOut | null): ToolFormValues {
  const http = tool?.http ?? null;
  const transfer = tool?.transfer ?? null;
  const mcp = tool?.mcp ?? null;
  const messages = tool?.messages;
  const parameters = tool?.parameters ?? NO_PARAMETERS;
  const rows = rowsOfSchema(parameters);
  const fields: Record<string, string> = {
    name: tool?.name ?? '',
    description: tool?.description ?? '',
    type: tool?.type ?? KINDS[0]!,
    enabled: String(tool?.enabled ?? defaultOf('enabled') ?? true),
    'http.method': http?.method ?? String(defaultOf('http.method') ?? ''),
    'http.url': http?.url ?? '',
    'http.body': http?.body === null || http?.body === undefined ? '' : JSON.stringify(http.body, null, 2),
    'http.timeout_ms': shownSeconds('http.timeout_ms', http?.timeout_ms),
    'transfer.destination': transfer?.destination ?? '',
    'transfer.mode': transfer?.mode ?? String(defaultOf('transfer.mode') ?? ''),
    'transfer.handoff_message': transfer?.handoff_message ?? '',
    'transfer.briefing_prompt': transfer?.briefing_prompt ?? '',
    'transfer.hold_audio': transfer?.hold_audio ?? String(defaultOf('transfer.hold_audio') ?? ''),
    'transfer.ring_timeout_s': String(transfer?.ring_timeout_s ?? defaultOf('transfer.ring_timeout_s') ?? ''),
    'transfer.on_decline_message': transfer?.on_decline_message ?? '',
    'mcp.url': mcp?.url ?? '',
    // A saved credential is never shown: the field stays empty, and empty keeps it.
    'mcp.authorization': '',
    'mcp.timeout_ms': shownSeconds('mcp.timeout_ms', mcp?.timeout_ms),
    'mcp.tools': (mcp?.tools ?? []).join('\n'),
    'messages.on_start': messages?.on_start ?? '',
    'messages.on_slow': messages?.on_slow ?? '',
    'messages.slow_after_ms': shownSeconds('messages.slow_after_ms', messages?.slow_after_ms),
    'messages.on_failure': messages?.on_failure ?? '',
    parameters: JSON.stringify(parameters, null, 2),
    parameters_as_json: String(rows === null),
  };
  return {
    fields,
    headers: [
      ...Object.entries(http?.headers ?? {}).map(([name, value]) => ({ name, value, secret: false, kept: '' })),
      ...Object.keys(http?.secret_headers ?? {}).map((name) => ({ name, value: '', secret: true, kept: name })),
    ],
    query: Object.entries(http?.query ?? {}).map(([name, value]) => ({ name, value })),
    params: rows ?? [],
  };
}

/** The form as posted, every field read as text whatever its shape; rows left empty are dropped. */
export function valuesOfPost(posted: unknown): ToolFormValues {
  const form = posted !== null && typeof posted === 'object' && !Array.isArray(posted) ? (posted as Record<string, unknown>) : {};
  const fields: Record<string, string> = {};
  for (const key of TEXT_FIELDS) fields[key] = first(form[key]);
  for (const key of SWITCHES) fields[key] = lastOf(form[key]);
  const column = (name: string) => texts(form[name]);
  const ticked = (name: string) => new Set(texts(form[name]));
  const count = (...columns: string[][]) => Math.max(0, ...columns.map((c) => c.length));

  const [headerNames, headerValues, headerKept] = [column('header_name[]'), column('header_value[]'), column('header_kept[]')];
  const secret = ticked('header_secret[]');
  const headers = Array.from({ length: count(headerNames, headerValues, headerKept) }, (_, i) => ({
    name: (headerNames[i] ?? '').trim(),
    value: headerValues[i] ?? '',
    secret: secret.has(String(i)),
    kept: (headerKept[i] ?? '').trim(),
  })).filter((h) => h.name !== '' || h.value !== '');

  const [queryNames, queryValues] = [column('query_name[]'), column('query_value[]')];
  const query = Array.from({ length: count(queryNames, queryValues) }, (_, i) => ({
    name: (queryNames[i] ?? '').trim(),
    value: queryValues[i] ?? '',
  })).filter((q) => q.name !== '' || q.value !== '');

  const [names, types, descriptions, values] = [column('param_name[]'), column('param_type[]'), column('param_description[]'), column('param_values[]')];
  const required = ticked('param_required[]');
  const params = Array.from({ length: count(names, types, descriptions, values) }, (_, i) => ({
    name: (names[i] ?? '').trim(),
    type: (types[i] ?? '').trim() || 'string',
    description: descriptions[i] ?? '',
    required: required.has(String(i)),
    values: values[i] ?? '',
  })).filter((p) => p.name !== '' || p.description.trim() !== '' || p.values.trim() !== '');

  return { fields, headers, query, params };
}

/** Seconds typed as the API's milliseconds; text that is no number goes as typed, for the API to refuse. */
function millisecondsOf(typed: string): number | string | undefined {
  const text = typed.trim();
  if (text === '') return undefined;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(text)) return text;
  return Math.round(Number(text) * 1000);
}

const orNull = (text: string | undefined) => (text === undefined || text.trim() === '' ? null : text);

function switchOf(typed: string): boolean | string | undefined {
  if (typed === '') return undefined;
  return typed === 'true' ? true : typed === 'false' ? false : typed;
}

/** JSON typed in a text area, or the parser's reason it is not JSON. */
function parsedJson(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, reason: `Not valid JSON: check the quotes, commas and brackets (${(error as Error).message}).` };
  }
}

/**
 * The API's body for the form. `masks` are the stored secret headers as the API shows them, by name: a secret row
 * left empty sends its mask back, which the API reads as "keep the stored value".
 */
export function bodyOfValues(values: ToolFormValues, masks: Record<string, string> = {}): ToolFormBody {
  const f = values.fields;
  const problems: FieldErrors = {};
  const type = (f.type ?? '').trim();
  const body: Record<string, unknown> = { name: (f.name ?? '').trim(), description: f.description ?? '', type };
  const enabled = switchOf(f.enabled ?? '');
  if (enabled !== undefined) body.enabled = enabled;

  if (type === 'http') {
    if (f.parameters_as_json === 'true') {
      const parsed = parsedJson(f.parameters ?? '');
      if (parsed.ok) body.parameters = parsed.value;
      else problems.parameters = parsed.reason;
    } else {
      const { schema, problems: rowProblems } = schemaOfRows(values.params);
      body.parameters = schema;
      Object.assign(problems, rowProblems);
    }
  } else {
    // A built-in's arguments are fixed by the call runtime: it takes none of its own.
    body.parameters = NO_PARAMETERS;
  }

  if (type === 'http') {
    const headers: Record<string, string> = {};
    const secrets: Record<string, string> = {};
    const seen = new Set<string>();
    values.headers.forEach((row, i) => {
      const lower = row.name.toLowerCase();
      const mask = row.kept ? masks[row.kept] : undefined;
      if (row.name === '') problems[headerKey(i, 'name')] = 'Give this header a name, or clear its value.';
      else if (seen.has(lower)) problems[headerKey(i, 'name')] = 'Another header above has this name.';
      else if (row.secret && row.value !== '') secrets[row.name] = row.value;
      else if (row.secret && mask !== undefined && lower === row.kept.toLowerCase()) secrets[row.name] = mask;
      else if (row.secret && mask !== undefined)
        problems[headerKey(i, 'value')] = 'Type the value again: a saved secret stays under the name it was saved with.';
      else if (row.secret) problems[headerKey(i, 'value')] = 'Type the secret value, or clear the row.';
      else if (mask !== undefined && row.value === '')
        problems[headerKey(i, 'value')] = 'A saved secret is never shown: type the value to send it as a plain header.';
      else headers[row.name] = row.value;
      seen.add(lower);
    });
    const query: Record<string, string> = {};
    values.query.forEach((row, i) => {
      if (row.name === '') problems[queryKey(i, 'name')] = 'Give this parameter a name, or clear its value.';
      else if (row.name in query) problems[queryKey(i, 'name')] = 'Another parameter above has this name.';
      else query[row.name] = row.value;
    });
    const http: Record<string, unknown> = { url: (f['http.url'] ?? '').trim(), headers, query, secret_headers: secrets };
    if ((f['http.method'] ?? '') !== '') http.method = f['http.method'];
    const timeout = millisecondsOf(f['http.timeout_ms'] ?? '');
    if (timeout !== undefined) http.timeout_ms = timeout;
    const bodyText = f['http.body'] ?? '';
    if (bodyText.trim() === '') http.body = null;
    else {
      const parsed = parsedJson(bodyText);
      if (parsed.ok) http.body = parsed.value;
      else problems['http.body'] = parsed.reason;
    }
    body.http = http;
  } else body.http = null;

  if (type === 'transfer_call') {
    const transfer: Record<string, unknown> = {
      destination: (f['transfer.destination'] ?? '').trim(),
      handoff_message: orNull(f['transfer.handoff_message']),
      briefing_prompt: orNull(f['transfer.briefing_prompt']),
      on_decline_message: orNull(f['transfer.on_decline_message']),
    };
    if ((f['transfer.mode'] ?? '') !== '') transfer.mode = f['transfer.mode'];
    if ((f['transfer.hold_audio'] ?? '') !== '') transfer.hold_audio = f['transfer.hold_audio'];
    // Whole seconds as typed; anything else goes to the API as it is, which refuses it beside the field.
    const ring = (f['transfer.ring_timeout_s'] ?? '').trim();
    if (ring !== '') transfer.ring_timeout_s = /^\d+$/.test(ring) ? Number(ring) : ring;
    body.transfer = transfer;
  } else body.transfer = null;

  if (type === 'mcp') {
    // One credential, the Authorization header most servers take; typed replaces it, empty keeps the saved one.
    const typed = (f['mcp.authorization'] ?? '').trim();
    const saved = masks.Authorization;
    const mcp: Record<string, unknown> = {
      url: (f['mcp.url'] ?? '').trim(),
      secret_headers: typed ? { Authorization: typed } : saved !== undefined ? { Authorization: saved } : {},
    };
    const names = (f['mcp.tools'] ?? '')
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean);
    mcp.tools = names.length > 0 ? names : null;
    const timeout = millisecondsOf(f['mcp.timeout_ms'] ?? '');
    if (timeout !== undefined) mcp.timeout_ms = timeout;
    body.mcp = mcp;
  } else body.mcp = null;

  const messages: Record<string, unknown> = {
    on_start: orNull(f['messages.on_start']),
    on_slow: orNull(f['messages.on_slow']),
    on_failure: orNull(f['messages.on_failure']),
  };
  const slowAfter = millisecondsOf(f['messages.slow_after_ms'] ?? '');
  if (slowAfter !== undefined) messages.slow_after_ms = slowAfter;
  body.messages = messages;
  return { body, problems };
}
