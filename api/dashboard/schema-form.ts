import { z } from 'zod';
import { unwrap } from '../../lib/zod/walk.js';
import type { FieldErrors } from './forms.js';
import { html, type Html } from './html.js';

// A resource's form made from the zod schema that validates its API: one input per setting, its default and bounds
// beside it, so a setting added to the schema appears in the page with no page code, and the page can never offer a
// value the API would take differently. Lists and free-form objects are edited as JSON.

type Kind = 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'json';

export interface Leaf {
  path: string[];
  key: string;
  kind: Kind;
  nullable: boolean;
  default: unknown;
  options: string[];
  min: number | undefined;
  max: number | undefined;
  long: boolean;
  description: string | undefined;
}

function defaultOf(schema: z.ZodType): unknown {
  let current = schema;
  for (;;) {
    const def = current._zod.def as { type: string; innerType?: z.ZodType; defaultValue?: unknown };
    if (def.type === 'default') return def.defaultValue;
    if (!def.innerType) return undefined;
    current = def.innerType;
  }
}

/**
 * Every setting of `shape`, depth first, objects opened into their fields, except those named in `whole` (top-level
 * keys), which are edited as one JSON value (an object that is there or null as a whole: a tool's `http`).
 */
export function leavesOf(shape: Record<string, z.ZodType>, prefix: string[] = [], whole: readonly string[] = []): Leaf[] {
  const out: Leaf[] = [];
  for (const [name, schema] of Object.entries(shape)) {
    const path = [...prefix, name];
    let { inner, nullable } = unwrap(schema);
    // A value cleaned on its way in (trimmed text) is edited as what goes in.
    while (inner._zod.def.type === 'pipe') {
      const input = unwrap((inner._zod.def as unknown as { in: z.ZodType }).in);
      inner = input.inner;
      nullable ||= input.nullable;
    }
    const type = inner._zod.def.type;
    if (type === 'object' && !whole.includes(name)) {
      out.push(...leavesOf((inner as z.ZodObject).shape as Record<string, z.ZodType>, path));
      continue;
    }
    const numeric = inner as unknown as {
      minValue?: number | null;
      maxValue?: number | null;
      isInt?: boolean;
      minLength?: number | null;
      maxLength?: number | null;
    };
    const kind: Kind =
      type === 'string'
        ? 'string'
        : type === 'number'
          ? numeric.isInt
            ? 'integer'
            : 'number'
          : type === 'boolean'
            ? 'boolean'
            : type === 'enum'
              ? 'enum'
              : 'json';
    const bound = (v: number | null | undefined) => (v === null || v === undefined || !Number.isFinite(v) || Math.abs(v) > 1e15 ? undefined : v);
    out.push({
      path,
      key: path.join('.'),
      kind,
      nullable,
      default: defaultOf(schema),
      options: kind === 'enum' ? (inner as z.ZodEnum).options.map(String) : [],
      min: bound(kind === 'string' ? undefined : numeric.minValue),
      max: bound(kind === 'string' ? undefined : numeric.maxValue),
      // Prompts and descriptions get a text area; names, URLs (2,048) and model ids a line.
      long: kind === 'string' && (numeric.maxLength ?? 0) > 4000,
      description: schema.description ?? inner.description,
    });
  }
  return out;
}

function valueAt(value: unknown, path: string[]): unknown {
  let current = value;
  for (const p of path) current = current !== null && typeof current === 'object' ? (current as Record<string, unknown>)[p] : undefined;
  return current;
}

function text(kind: Kind, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (kind === 'json') return JSON.stringify(value, null, 2);
  return String(value);
}

function hintOf(leaf: Leaf): string {
  const parts: string[] = [];
  if (leaf.default !== undefined)
    parts.push(`default ${leaf.default === null ? 'none' : leaf.kind === 'json' ? JSON.stringify(leaf.default) : JSON.stringify(leaf.default)}`);
  if (leaf.min !== undefined && leaf.max !== undefined) parts.push(`${leaf.min} to ${leaf.max}`);
  else if (leaf.min !== undefined) parts.push(`at least ${leaf.min}`);
  else if (leaf.max !== undefined) parts.push(`at most ${leaf.max}`);
  if (leaf.nullable) parts.push('empty for none');
  if (leaf.kind === 'json') parts.push('JSON');
  if (leaf.description) parts.push(leaf.description);
  return parts.join(' · ');
}

/** The first error at or under this setting (a JSON field's errors name paths inside it). */
function errorOf(leaf: Leaf, errors: FieldErrors): string | undefined {
  if (errors[leaf.key]) return errors[leaf.key];
  const inside = Object.keys(errors).find((k) => k.startsWith(`${leaf.key}.`));
  return inside ? `${inside.slice(leaf.key.length + 1)}: ${errors[inside]}` : undefined;
}

function input(leaf: Leaf, value: unknown, errors: FieldErrors): Html {
  const id = `f-${leaf.key.replace(/\./g, '-')}`;
  const error = errorOf(leaf, errors);
  const current = text(leaf.kind, value);
  const aria = html` aria-describedby="${id}-hint${error ? ` ${id}-error` : ''}"${error ? html` aria-invalid="true"` : ''}`;
  const label = html`<label for="${id}">${leaf.path[leaf.path.length - 1]!.replace(/_/g, ' ')} <span class="hint" id="${id}-hint">${hintOf(leaf)}</span></label>`;
  let control: Html;
  if (leaf.kind === 'boolean' || leaf.kind === 'enum') {
    const options = leaf.kind === 'boolean' ? ['true', 'false'] : leaf.options;
    control = html`<select id="${id}" name="${leaf.key}"${aria}>${leaf.nullable ? html`<option value=""${current === '' ? html` selected` : ''}>none</option>` : ''}${options.map((o) => html`<option${o === current ? html` selected` : ''}>${o}</option>`)}</select>`;
  } else if (leaf.kind === 'json' || leaf.long) {
    // As tall as what it holds, within reason.
    const rows = Math.min(14, Math.max(leaf.kind === 'json' ? 2 : 6, current.split('\n').length));
    control = html`<textarea id="${id}" name="${leaf.key}"${leaf.kind === 'json' ? html` class="json"` : ''} rows="${rows}"${aria}>${current}</textarea>`;
  } else {
    const numeric = leaf.kind === 'number' || leaf.kind === 'integer';
    control = html`<input id="${id}" name="${leaf.key}" type="${numeric ? 'number' : 'text'}"${numeric ? html` step="${leaf.kind === 'integer' ? '1' : 'any'}"` : ''} value="${current}"${aria}>`;
  }
  return html`<div class="setting">${label}${control}${error ? html`<div class="error" id="${id}-error">${error}</div>` : ''}</div>`;
}

/** The inputs of every setting, top-level scalars first, then one fieldset per settings object. */
export function schemaFields(leaves: Leaf[], value: unknown, errors: FieldErrors): Html {
  const top = leaves.filter((l) => l.path.length === 1);
  const groups = new Map<string, Leaf[]>();
  for (const leaf of leaves.filter((l) => l.path.length > 1)) groups.set(leaf.path[0]!, [...(groups.get(leaf.path[0]!) ?? []), leaf]);
  return html`<div class="settings">${top.map((l) => input(l, valueAt(value, l.path), errors))}</div>
${[...groups].map(([group, ls]) => html`<fieldset class="card"><legend>${group.replace(/_/g, ' ')}</legend><div class="settings">${ls.map((l) => input(l, valueAt(value, l.path), errors))}</div></fieldset>`)}`;
}

/**
 * A posted form as the API's JSON body: numbers and booleans typed, empty nullable settings null, other empty settings
 * left out (their default, or the stored value on an update), JSON parsed. Text that is not a number or not JSON is
 * passed on as text, so the API's own validation refuses it at its field.
 */
export function bodyOfForm(leaves: Leaf[], form: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const leaf of leaves) {
    const raw = form[leaf.key];
    if (typeof raw !== 'string') continue;
    let value: unknown;
    if (raw.trim() === '') {
      if (!leaf.nullable) continue;
      value = null;
    } else if (leaf.kind === 'number' || leaf.kind === 'integer') {
      value = Number.isFinite(Number(raw)) ? Number(raw) : raw;
    } else if (leaf.kind === 'boolean') {
      value = raw === 'true' ? true : raw === 'false' ? false : raw;
    } else if (leaf.kind === 'json') {
      try {
        value = JSON.parse(raw);
      } catch {
        value = raw;
      }
    } else {
      value = raw;
    }
    let target = body;
    for (const p of leaf.path.slice(0, -1)) target = (target[p] ??= {}) as Record<string, unknown>;
    target[leaf.path[leaf.path.length - 1]!] = value;
  }
  return body;
}
