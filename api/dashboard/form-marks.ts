import type { FieldErrors } from './forms.js';
import { html, type Html } from './html.js';

// The refusals a form shows at its controls: each control reads its refusal from one `Marks`, which remembers what it
// showed, so a refusal no control claims still reaches the page's notice; and a control's error line and its ARIA
// ties, the same in every form laid out for people (the campaign, tool and playbook forms).

export class Marks {
  private readonly shown = new Set<string>();
  constructor(private readonly errors: FieldErrors) {}

  at(key: string): string | undefined {
    const message = this.errors[key];
    if (message !== undefined) this.shown.add(key);
    return message;
  }

  /** The first refusal filed under `prefix.` (a row's parts: `header.2.name`), claimed with its key. */
  under(prefix: string): { key: string; message: string } | undefined {
    const key = Object.keys(this.errors).find((k) => k.startsWith(`${prefix}.`));
    if (key === undefined) return undefined;
    this.shown.add(key);
    return { key, message: this.errors[key]! };
  }

  get count(): number {
    return Object.keys(this.errors).filter((k) => k !== '').length;
  }

  /** Refusals no control showed, with the setting they name. */
  unshown(): [key: string, message: string][] {
    return Object.entries(this.errors).filter(([k]) => k !== '' && !this.shown.has(k));
  }
}

export const idOf = (key: string): string => `f-${key.replace(/[^a-z0-9_-]/gi, '-')}`;

export function errorLine(id: string, error: string | undefined): Html {
  return error ? html`<div class="error" id="${id}-error">${error}</div>` : html``;
}

/** `aria-describedby` and `aria-invalid` for a control with this hint and error. */
export function aria(id: string, hint: boolean, error: string | undefined): Html {
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`${described ? html` aria-describedby="${described}"` : ''}${error ? html` aria-invalid="true"` : ''}`;
}

/** The notice above a refused form: how many settings were refused, and any no control showed, by name. */
/** The form's notice of refusals: how many, and any no control showed, named by `labelOf` (the key as code by default). */
export function refusalNotice(errors: FieldErrors, marks: Marks, labelOf: (key: string) => Html | string = (key) => html`<code>${key}</code>`): Html {
  if (errors[''] === undefined && marks.count === 0) return html``;
  const unshown = marks.unshown();
  const count = marks.count;
  const summary = errors[''] ?? (count === 1 ? 'One setting was refused: see the marked field.' : `${count} settings were refused: see the marked fields.`);
  return html`<div class="notice bad" role="alert">${summary}${
    unshown.length > 0 ? html`<ul>${unshown.map(([key, message]) => html`<li>${labelOf(key)}: ${message}</li>`)}</ul>` : ''
  }</div>`;
}
