import type { FieldErrors } from '../../forms.js';
import { html, type Html } from '../../html.js';
import type { Leaf } from '../../schema-form.js';
import { settingRow, type ControlContext } from './controls.js';
import { SECTIONS, type Section } from './sections.js';

// The builder's form: a tab per section, Essentials first and open, the others a click away (without the page's
// script every section shows, one under another). A section holding a refused setting is marked and opened first.

function valueAt(value: unknown, key: string): unknown {
  let current = value;
  for (const p of key.split('.')) current = current !== null && typeof current === 'object' ? (current as Record<string, unknown>)[p] : undefined;
  return current;
}

/** The sections with every setting the API has: one the table does not name is added to Advanced. */
export function sectionsFor(leaves: Leaf[]): Section[] {
  const named = new Set(SECTIONS.flatMap((s) => s.fields.map((f) => f.key)));
  const unnamed = leaves.filter((l) => !named.has(l.key));
  return SECTIONS.map((s) =>
    s.id === 'advanced'
      ? { ...s, fields: [...s.fields, ...unnamed.map((l) => ({ key: l.key, label: l.path.map((p) => p.replace(/_/g, ' ')).join(' › ') }))] }
      : s,
  );
}

function hasError(section: Section, errors: FieldErrors): boolean {
  return Object.keys(errors).some((k) => section.fields.some((f) => k === f.key || k.startsWith(`${f.key}.`)));
}

export function builderForm(options: {
  leaves: Leaf[];
  value: unknown;
  errors: FieldErrors;
  ctx: Omit<ControlContext, 'errors'>;
  action: string;
  csrf: Html;
  submitLabel: string;
  /** Hidden fields carried with the form (the starter it came from). */
  extra?: Html;
}): Html {
  const byKey = new Map(options.leaves.map((l) => [l.key, l]));
  const sections = sectionsFor(options.leaves);
  const ctx: ControlContext = { ...options.ctx, errors: options.errors };
  const firstWithError = sections.find((s) => hasError(s, options.errors))?.id;
  const open = firstWithError ?? 'essentials';
  return html`<form method="post" action="${options.action}" novalidate class="builder" data-builder>${options.csrf}${options.extra ?? ''}
<div class="tabs" role="tablist" aria-label="Settings">${sections.map(
    (s) =>
      html`<a role="tab" href="#s-${s.id}" id="t-${s.id}" aria-controls="s-${s.id}" aria-selected="${s.id === open ? 'true' : 'false'}"${hasError(s, options.errors) ? html` class="has-error"` : ''}>${s.title}${hasError(s, options.errors) ? html`<span class="visually-hidden"> (has an error)</span>` : ''}</a>`,
  )}</div>
${sections.map(
  (s) => html`<section class="card tabpanel" role="tabpanel" id="s-${s.id}" aria-labelledby="t-${s.id}" data-open="${s.id === open ? 'true' : 'false'}">
<h2>${s.title}</h2><p class="muted intro">${s.intro}</p>
<div class="settings">${s.fields.map((f) => settingRow(f, byKey.get(f.key), valueAt(options.value, f.key), ctx))}</div></section>`,
)}
<div class="actions save-bar"><button type="submit">${options.submitLabel}</button><span class="unsaved" data-unsaved hidden role="status">Unsaved changes</span><a href="/assistants">Cancel</a></div>
</form>`;
}
