import type { PlaybookOut } from '../../../../modules/playbooks/index.js';
import type { FieldErrors } from '../../forms.js';
import { CHOICE_TYPE, type CollectRow } from './collect-rows.js';
import { exampleKey, messagesOfScript, scriptOf } from './example-rows.js';
import { COLLECT_TYPES, DEFAULTS } from './schema-facts.js';

// The playbook form's fields as a person types them, and the API's body they mean. The form posts plain fields, so it
// works without a script: each setting under its API name, the steps one a line, each example a script (a turn a
// line), the tools as ticked ids, the values to collect as `collect_<part>[]` rows.

export interface PlaybookFormValues {
  /** name, description, enabled (`true`/`false`), goal, mode, content, and the steps one a line as `instructions`. */
  fields: Record<string, string>;
  examples: string[];
  /** The tool ids ticked, as posted. */
  toolIds: string[];
  collect: CollectRow[];
}

export interface PlaybookFormBody {
  body: Record<string, unknown>;
  /** Refusals only the form can make (a line of an example with no speaker, a value without a name), at their row. */
  problems: FieldErrors;
}

const TEXT_FIELDS = ['name', 'description', 'goal', 'mode', 'content', 'instructions'] as const;

const texts = (v: unknown): string[] => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
const first = (v: unknown): string => texts(v)[0] ?? '';
const lastOf = (v: unknown): string => texts(v).at(-1) ?? '';
const linesOf = (text: string) =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);

/** The form filled from a stored playbook, or from the schema's defaults for a new one. */
export function valuesOfPlaybook(playbook: PlaybookOut | null): PlaybookFormValues {
  const p = playbook ?? DEFAULTS;
  return {
    fields: {
      name: p.name ?? '',
      description: p.description ?? '',
      enabled: String(p.enabled ?? true),
      goal: p.goal ?? '',
      mode: p.mode ?? '',
      content: p.content ?? '',
      instructions: (p.instructions ?? []).join('\n'),
    },
    examples: (p.examples ?? []).map(scriptOf),
    toolIds: (p.tool_ids ?? []).map(String),
    collect: (p.collect ?? []).map((c) => ({
      name: c.name,
      type: c.type,
      description: c.description,
      required: c.required,
      values: (c.values ?? []).join('\n'),
    })),
  };
}

/** The form as posted, every field read as text whatever its shape; rows left empty are dropped. */
export function valuesOfPost(posted: unknown): PlaybookFormValues {
  const form = posted !== null && typeof posted === 'object' && !Array.isArray(posted) ? (posted as Record<string, unknown>) : {};
  const fields: Record<string, string> = {};
  for (const key of TEXT_FIELDS) fields[key] = first(form[key]);
  fields.enabled = lastOf(form.enabled);
  const column = (name: string) => texts(form[name]);
  const [names, types, descriptions, values] = [
    column('collect_name[]'),
    column('collect_type[]'),
    column('collect_description[]'),
    column('collect_values[]'),
  ];
  const required = new Set(column('collect_required[]'));
  const collect = Array.from({ length: Math.max(names.length, types.length, descriptions.length, values.length) }, (_, i) => ({
    name: (names[i] ?? '').trim(),
    type: (types[i] ?? '').trim() || COLLECT_TYPES[0]!,
    description: descriptions[i] ?? '',
    required: required.has(String(i)),
    values: values[i] ?? '',
  })).filter((c) => c.name !== '' || c.description.trim() !== '' || c.values.trim() !== '');
  return {
    fields,
    examples: column('example[]').filter((s) => s.trim() !== ''),
    toolIds: [...new Set(column('tool_ids').map((t) => t.trim()))].filter((t) => t !== ''),
    collect,
  };
}

/**
 * The API's body for the form. Tools keep the order stored (`storedTools`) with new ones after, so an unchanged list
 * is the same list; then it is left out, as the API's own clients leave it out, and a tool disabled since does not
 * stop the rest of the playbook from being saved.
 */
export function bodyOfValues(values: PlaybookFormValues, storedTools: readonly number[] | null = null): PlaybookFormBody {
  const f = values.fields;
  const problems: FieldErrors = {};
  const body: Record<string, unknown> = {
    name: f.name ?? '',
    description: f.description ?? '',
    goal: f.goal ?? '',
    content: f.content ?? '',
    instructions: linesOf(f.instructions ?? ''),
  };
  if ((f.enabled ?? '') !== '') body.enabled = f.enabled === 'true' ? true : f.enabled === 'false' ? false : f.enabled;
  if ((f.mode ?? '') !== '') body.mode = f.mode;

  body.examples = values.examples.map((script, i) => {
    const read = messagesOfScript(script);
    if ('line' in read) {
      problems[exampleKey(i)] = `Line ${read.line} does not say who speaks: open it with “Caller:” or “Assistant:”.`;
      return [];
    }
    return read.messages;
  });

  const ids = values.toolIds.map((t) => (/^\d{1,15}$/.test(t) ? Number(t) : t));
  const stored = storedTools ?? [];
  const ordered = [...stored.filter((id) => ids.includes(id)), ...ids.filter((id) => typeof id !== 'number' || !stored.includes(id))];
  const unchanged = storedTools !== null && ordered.length === stored.length && ordered.every((id, i) => id === stored[i]);
  if (!unchanged) body.tool_ids = ordered;

  body.collect = values.collect.map((row) => {
    const listed = row.type === CHOICE_TYPE ? linesOf(row.values) : [];
    return {
      name: row.name,
      type: row.type,
      description: row.description,
      required: row.required,
      // Values go with a choice only: the page hides them for the other types, and the API refuses them there.
      values: row.type === CHOICE_TYPE && listed.length > 0 ? listed : null,
    };
  });
  return { body, problems };
}
