import { Ajv } from 'ajv';
import type { ValidationDetail } from '../../lib/errors.js';
import { isRefusedLiteral } from '../../lib/net/target-guard.js';
import type { ToolCreateIn } from './schemas.js';

// What a tool must be beyond its fields' shapes: its config matches its type, its parameters are a JSON Schema of an
// object, its templates name only what a call has (`var`, `contact`, and the tool's own declared arguments), and its
// URL's scheme and host are written out, never filled in from a value, so that no variable or argument can choose
// where a request goes.

/** The largest parameters schema, serialised: a schema, not a document. */
const MAX_PARAMETERS_BYTES = 16_384;

/** `{{ns.name}}`; anything else between double braces is refused, so a typo does not go out as literal text. */
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const VALID_PLACEHOLDER = /^(var|contact|args)\.([A-Za-z0-9_-]{1,64})$/;

const ajv = new Ajv({ strict: false, validateSchema: true });

export interface ToolPolicy {
  /** Accept URLs whose host is a loopback, private or other non-public IP address (as webhooks do). */
  allowPrivateTargets: boolean;
}

type Loc = (string | number)[];

/** Every problem of `tool`, located in the request body; empty when it is a valid tool. */
export function toolProblems(tool: ToolCreateIn, policy: ToolPolicy): ValidationDetail[] {
  const problems: ValidationDetail[] = [];
  const fail = (loc: Loc, msg: string) => problems.push({ loc: ['body', ...loc], msg, type: 'value_error' });

  if (tool.type === 'http' && !tool.http) fail(['http'], 'An http tool needs its request');
  if (tool.type !== 'http' && tool.http) fail(['http'], `A ${tool.type} tool has no HTTP request`);
  if (tool.type === 'transfer_call' && !tool.transfer) fail(['transfer'], 'A transfer_call tool needs its destination');
  if (tool.type !== 'transfer_call' && tool.transfer) fail(['transfer'], `A ${tool.type} tool has no transfer`);
  if (tool.type === 'mcp' && !tool.mcp) fail(['mcp'], 'An mcp tool needs its server');
  if (tool.type !== 'mcp' && tool.mcp) fail(['mcp'], `A ${tool.type} tool has no MCP server`);
  if (tool.mcp) checkUrl(tool.mcp.url, policy, fail, ['mcp', 'url']);
  if (tool.type === 'knowledge_search') {
    const properties = (tool.parameters.properties ?? {}) as Record<string, unknown>;
    const extra = Object.keys(properties).find((k) => k !== 'query');
    if (extra !== undefined) fail(['parameters', 'properties', extra], 'A knowledge_search tool takes one argument, query: its parameters are fixed');
  }

  // The recursive readers below (the JSON Schema check, the template walk) are safe: the API refuses documents nested
  // deeper than 32 levels before they get here (api/http/json-body.ts).
  const declared = parameterNames(tool.parameters, fail);
  if (tool.http) {
    const http = tool.http;
    checkTemplate(http.url, ['http', 'url'], declared, fail);
    checkUrl(http.url, policy, fail, ['http', 'url']);
    for (const [key, value] of Object.entries(http.headers)) checkTemplate(value, ['http', 'headers', key], declared, fail);
    for (const [key, value] of Object.entries(http.query)) checkTemplate(value, ['http', 'query', key], declared, fail);
    walkStrings(http.body, ['http', 'body'], (text, loc) => checkTemplate(text, loc, declared, fail));
    for (const key of Object.keys(http.secret_headers)) {
      if (Object.keys(http.headers).some((h) => h.toLowerCase() === key.toLowerCase())) fail(['http', 'secret_headers', key], 'Also set as a plain header');
    }
  }
  return problems;
}

/** The argument names the schema declares; a schema that is not one of an object is a problem. */
function parameterNames(schema: Record<string, unknown>, fail: (loc: Loc, msg: string) => void): Set<string> {
  if (JSON.stringify(schema).length > MAX_PARAMETERS_BYTES) {
    fail(['parameters'], `At most ${MAX_PARAMETERS_BYTES} bytes`);
    return new Set();
  }
  if (schema.type !== 'object') fail(['parameters', 'type'], 'The arguments are an object: type must be "object"');
  if (!ajv.validateSchema(schema)) {
    for (const error of ajv.errors ?? [])
      fail(['parameters', ...error.instancePath.split('/').filter(Boolean)], `Not a valid JSON Schema: ${error.message ?? 'invalid'}`);
    return new Set();
  }
  const properties = schema.properties;
  return new Set(properties && typeof properties === 'object' ? Object.keys(properties) : []);
}

function checkTemplate(text: string, loc: Loc, declared: Set<string>, fail: (loc: Loc, msg: string) => void): void {
  for (const [, inner] of text.matchAll(PLACEHOLDER)) {
    const match = VALID_PLACEHOLDER.exec(inner ?? '');
    if (!match) fail(loc, `{{${inner}}} is not a placeholder: use {{var.name}}, {{contact.field}} or {{args.name}}`);
    else if (match[1] === 'args' && !declared.has(match[2]!)) fail(loc, `{{args.${match[2]}}} is not among the parameters' properties`);
  }
}

/** The scheme and host are literal and allowed; placeholders may fill the path and query only. */
function checkUrl(url: string, policy: ToolPolicy, fail: (loc: Loc, msg: string) => void, loc: Loc): void {
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(url)?.[0];
  if (!origin || origin.includes('{{')) {
    fail(loc, 'Must start with http:// or https:// and a host written out: a placeholder may fill the path and query, not the host');
    return;
  }
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    fail(loc, 'Not a URL');
    return;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') fail(loc, 'Must be http or https');
  else if (parsed.username || parsed.password) fail(loc, 'Credentials go in secret_headers, not in the URL');
  else if (isRefusedLiteral(parsed, policy.allowPrivateTargets)) fail(loc, 'URL points at a private, loopback, link-local or otherwise non-public address');
}

function walkStrings(value: unknown, loc: Loc, visit: (text: string, loc: Loc) => void): void {
  if (typeof value === 'string') visit(value, loc);
  else if (Array.isArray(value)) value.forEach((v, i) => walkStrings(v, [...loc, i], visit));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walkStrings(v, [...loc, k], visit);
}
