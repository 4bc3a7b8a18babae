// An HTTP tool's request, filled in for one call of it. Placeholders are replaced in one pass, so a value that itself
// reads "{{args.x}}" stays that text: values are data, never template syntax. Each value is encoded for where it
// lands: a URL path component, a query parameter (by URLSearchParams), a header (control characters removed, so no
// value can add a header or split the request), or JSON (a body string that is exactly one placeholder becomes the value
// with its own JSON type; elsewhere values are text inside the string).

const PLACEHOLDER = /\{\{\s*(var|contact|args)\.([A-Za-z0-9_-]{1,64})\s*\}\}/g;
const WHOLE_PLACEHOLDER = /^\{\{\s*(var|contact|args)\.([A-Za-z0-9_-]{1,64})\s*\}\}$/;

export interface ToolValues {
  /** The call's variables (`{{var.*}}`). */
  variables: Record<string, unknown>;
  /** The call's contact, standard and custom fields (`{{contact.*}}`); null without one. */
  contact: Record<string, unknown> | null;
  /** What the model passed (`{{args.*}}`). */
  args: Record<string, unknown>;
}

export interface RenderedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** JSON text, or null for no body. */
  body: string | null;
  /** Placeholders that had no value (`var.order_id`); they render as empty. */
  missing: string[];
}

export interface HttpTemplate {
  method: string;
  url: string;
  headers: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
}

function lookup(values: ToolValues, namespace: string, name: string): unknown {
  const source = namespace === 'var' ? values.variables : namespace === 'contact' ? values.contact : values.args;
  return source && Object.hasOwn(source, name) ? source[name] : undefined;
}

const asText = (value: unknown): string => (value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value));

function fill(template: string, values: ToolValues, missing: Set<string>, encode: (text: string) => string): string {
  return template.replace(PLACEHOLDER, (_whole, namespace: string, name: string) => {
    const value = lookup(values, namespace, name);
    if (value === undefined) missing.add(`${namespace}.${name}`);
    return encode(asText(value));
  });
}

/** Control characters (CR, LF, NUL and the rest) out of a header value: a value cannot start a header of its own. */
const headerSafe = (text: string) => text.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();

function fillJson(template: unknown, values: ToolValues, missing: Set<string>): unknown {
  if (typeof template === 'string') {
    const whole = WHOLE_PLACEHOLDER.exec(template);
    if (whole) {
      const value = lookup(values, whole[1]!, whole[2]!);
      if (value === undefined) missing.add(`${whole[1]}.${whole[2]}`);
      return value ?? null;
    }
    return fill(template, values, missing, (text) => text);
  }
  if (Array.isArray(template)) return template.map((item) => fillJson(item, values, missing));
  if (template && typeof template === 'object') return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, fillJson(v, values, missing)]));
  return template;
}

/** Methods whose requests carry a body: with no body template, the model's arguments are sent. */
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

export function renderRequest(template: HttpTemplate, values: ToolValues): RenderedRequest {
  const missing = new Set<string>();
  // The scheme and host are literal (checked when the tool was saved); placeholders fill path segments and the query.
  const url = new URL(fill(template.url, values, missing, encodeURIComponent));
  for (const [key, value] of Object.entries(template.query))
    url.searchParams.append(
      key,
      fill(value, values, missing, (text) => text),
    );
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(template.headers)) headers[key] = headerSafe(fill(value, values, missing, headerSafe));
  let body: string | null = null;
  if (template.body !== null && template.body !== undefined) body = JSON.stringify(fillJson(template.body, values, missing));
  else if (WITH_BODY.has(template.method)) body = JSON.stringify(values.args);
  return { method: template.method, url: url.href, headers, body, missing: [...missing] };
}
