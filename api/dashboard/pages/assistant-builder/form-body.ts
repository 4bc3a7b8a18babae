import { bodyOfForm, type Leaf } from '../../schema-form.js';
import { OTHER_VOICE } from './controls.js';
import { fallbacksOfForm } from './fallback-rows.js';
import { languagesOfForm } from './language-rows.js';
import { SECTIONS } from './sections.js';

// The builder's posted form as the API's JSON body. Each control posts in its own way (a switch its hidden "false"
// then "true" when on, a list one item a line, a picker its ticked ids after an empty marker, the voice select a
// marker when the id is typed in); this turns each into the text the schema form reads, then types them all alike.

const controlOf = new Map(SECTIONS.flatMap((s) => s.fields.map((f) => [f.key, f.control] as const)));

function values(raw: unknown): string[] {
  if (Array.isArray(raw)) return raw.filter((v): v is string => typeof v === 'string');
  return typeof raw === 'string' ? [raw] : [];
}

export function builderBody(leaves: Leaf[], form: Record<string, unknown>): Record<string, unknown> {
  const text: Record<string, string> = {};
  for (const leaf of leaves) {
    const control = controlOf.get(leaf.key) ?? (leaf.kind === 'boolean' ? 'switch' : undefined);
    // Rows post under the setting's name with their index and part, never under the name itself.
    if (control === 'fallbacks') {
      if (`${leaf.key}.0.provider` in form) text[leaf.key] = JSON.stringify(fallbacksOfForm(leaf.key, form));
      continue;
    }
    if (control === 'languages') {
      if (`${leaf.key}.0.language` in form) text[leaf.key] = JSON.stringify(languagesOfForm(leaf.key, form));
      continue;
    }
    const posted = values(form[leaf.key]);
    if (control === 'secret') {
      // Typed: the new secret. Left empty: the saved one, by its mask; none saved: none.
      const typed = (posted[0] ?? '').trim();
      if (posted.length > 0 || `${leaf.key}.kept` in form) text[leaf.key] = typed || (values(form[`${leaf.key}.kept`])[0] ?? '');
      continue;
    }
    if (posted.length === 0) continue;
    if (control === 'switch') {
      text[leaf.key] = posted.at(-1)!;
    } else if (control === 'lines') {
      const items = posted[0]!
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter(Boolean);
      text[leaf.key] = JSON.stringify(items);
    } else if (control === 'tools' || control === 'documents' || control === 'playbooks') {
      const ids = posted.filter((v) => v !== '').map((v) => (/^\d+$/.test(v) ? Number(v) : v));
      // None ticked: an empty list, or no playbooks at all for the setting that takes none.
      text[leaf.key] = ids.length === 0 && leaf.nullable ? '' : JSON.stringify(ids);
    } else if (control === 'voice') {
      const chosen = posted.at(-1)!;
      text[leaf.key] = chosen === OTHER_VOICE ? (values(form[`${leaf.key}.other`])[0] ?? '').trim() : chosen;
    } else {
      text[leaf.key] = posted[0]!;
    }
  }
  return bodyOfForm(leaves, text);
}
