import type { z } from 'zod';
import { AppError, ValidationFailed, type ValidationDetail } from '../../lib/errors.js';
import { zodIssuesToDetail } from '../../lib/zod/detail.js';
import { friendlyMessage } from './friendly-errors.js';
import { html, type Html } from './html.js';

// Forms post the same fields the API takes and are validated by the same schemas and services, so a refusal is the
// API's 422 `detail`, in plain words (friendly-errors.ts), shown next to the field its `loc` names (`body.llm_settings.temperature` under that field; a
// form sent by GET names its fields in the query: `query.to`).

/** Messages by field path (`email`, `llm_settings.temperature`); `''` for the form as a whole. */
export type FieldErrors = Record<string, string>;

export function errorsOfDetail(detail: ValidationDetail[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const d of detail) {
    const path = (d.loc[0] === 'body' || d.loc[0] === 'query' ? d.loc.slice(1) : d.loc).join('.');
    errors[path] ??= friendlyMessage(d);
  }
  return errors;
}

/**
 * The field errors a service's refusal means for a form: a validation failure by field, an AppError that names its
 * field on that field, any other AppError on the form. Anything else is not the person's doing and is thrown on.
 */
export function formErrors(error: unknown): FieldErrors {
  if (error instanceof ValidationFailed) return errorsOfDetail(error.detail);
  if (error instanceof AppError && error.kind !== 'internal') {
    const field = typeof error.data?.field === 'string' ? error.data.field : '';
    return { [field]: error.message };
  }
  throw error;
}

export function parseForm<S extends z.ZodType>(schema: S, body: unknown): { ok: true; data: z.output<S> } | { ok: false; errors: FieldErrors } {
  const result = schema.safeParse(body);
  if (result.success) return { ok: true, data: result.data };
  return { ok: false, errors: errorsOfDetail(zodIssuesToDetail(result.error.issues, 'body', body)) };
}

/** The fields of a posted form without the anti-forgery token, empty fields left out (the API's "not given"). */
export function formValues(body: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries((body ?? {}) as Record<string, unknown>)) {
    if (k !== '_csrf' && typeof v === 'string' && v !== '') out[k] = v;
  }
  return out;
}

interface FieldOptions {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password' | 'number' | 'search' | 'date';
  value?: string | number | null | undefined;
  errors?: FieldErrors;
  hint?: string;
  required?: boolean;
  autocomplete?: string;
  step?: string;
  /** Told apart from a field of the same name in another form of the page (`password-current_password`). */
  form?: string;
}

/** A labelled input with its hint and its error, tied together for screen readers (aria-describedby). */
export function field(o: FieldOptions): Html {
  const id = `f-${o.form ? `${o.form}-` : ''}${o.name.replace(/[^a-z0-9_-]/gi, '-')}`;
  const error = o.errors?.[o.name];
  const described = [o.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<label for="${id}">${o.label}${o.hint ? html` <span class="hint" id="${id}-hint">${o.hint}</span>` : ''}</label>
<input id="${id}" name="${o.name}" type="${o.type ?? 'text'}" value="${o.value ?? ''}"${o.required ? html` required` : ''}${o.autocomplete ? html` autocomplete="${o.autocomplete}"` : ''}${o.step ? html` step="${o.step}"` : ''}${described ? html` aria-describedby="${described}"` : ''}${error ? html` aria-invalid="true"` : ''}>
${error ? html`<div class="error" id="${id}-error">${error}</div>` : ''}`;
}

/** A select of `options` with the field's error. */
export function selectField(o: {
  name: string;
  label: string;
  options: readonly string[];
  value?: string | null | undefined;
  errors?: FieldErrors;
  hint?: string;
}): Html {
  const id = `f-${o.name.replace(/[^a-z0-9_-]/gi, '-')}`;
  const error = o.errors?.[o.name];
  return html`<label for="${id}">${o.label}${o.hint ? html` <span class="hint">${o.hint}</span>` : ''}</label>
<select id="${id}" name="${o.name}"${error ? html` aria-invalid="true" aria-describedby="${id}-error"` : ''}>${o.options.map((opt) => html`<option${opt === o.value ? html` selected` : ''}>${opt}</option>`)}</select>
${error ? html`<div class="error" id="${id}-error">${error}</div>` : ''}`;
}

/** The error of the form as a whole (`''`), if any. */
export function formError(errors: FieldErrors | undefined): Html {
  const message = errors?.[''];
  return message ? html`<div class="notice bad" role="alert">${message}</div>` : html``;
}

/** `body` as `schema` reads it, or the API's 422 for it (`loc` under `body`), as a route's validation would answer. */
export function validated<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body);
  if (!result.success) throw new ValidationFailed(zodIssuesToDetail(result.error.issues, 'body', body));
  return result.data;
}
