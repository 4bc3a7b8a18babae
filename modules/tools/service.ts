import type { z } from 'zod';
import type { Db } from '../../prisma/client.js';
import { Prisma } from '../../prisma/generated/client.js';
import { AppError, notFound, ValidationFailed, type ValidationDetail } from '../../lib/errors.js';
import { paginationOf } from '../../lib/pagination.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { isMasked, isMaskOf, maskSecret } from '../../lib/secrets.js';
import { loadContactFields } from '../calls/index.js';
import { executeHttpTool, type HttpToolResult } from './http-executor.js';
import { listMcpServerTools } from './mcp-client.js';
import {
  storedTransfer,
  KNOWLEDGE_TOOL_PARAMETERS,
  type McpServerTools,
  ToolCreate,
  type ToolCreateIn,
  type ToolOut,
  type ToolTestRequest,
  type ToolUpdateIn,
} from './schemas.js';
import { toolProblems, type ToolPolicy } from './validation.js';

// The organisation's tools: stored with their credential headers sealed (lib/secret-box.ts), read with them masked.
// An update is merged into the stored tool and the result checked as a whole, as a new tool would be, so a change of
// type cannot leave a config behind that does not fit it.

export interface ToolDeps {
  db: Db;
  secrets: SecretBox;
  policy: ToolPolicy;
}

/** What `config` holds: everything of a tool but its own columns, with secret header values sealed. */
export interface StoredConfig {
  parameters: Record<string, unknown>;
  http: (NonNullable<ToolCreateIn['http']> & { secret_headers: Record<string, string> }) | null;
  transfer: ToolCreateIn['transfer'];
  /** Absent in rows written before MCP tools. */
  mcp?: (NonNullable<ToolCreateIn['mcp']> & { secret_headers: Record<string, string> }) | null;
  messages: ToolCreateIn['messages'];
}

type ToolRow = {
  id: number;
  organizationId: number;
  name: string;
  description: string | null;
  type: string;
  enabled: boolean;
  config: unknown;
  createdAt: Date;
  updatedAt: Date;
};

/** Binds a sealed header to its organisation and header name: copied to another row or tenant, it does not open. */
const sealContext = (organizationId: number, header: string) => `tool-header:${organizationId}:${header.toLowerCase()}`;

/**
 * The stored value, or undefined when it does not open: sealed under another SECRETS_KEY than this process has. Reads
 * then show a bare mask instead of failing, and the tool's requests go without it until the value is written again.
 */
function opened(secrets: SecretBox, sealed: string, context: string): string | undefined {
  try {
    return secrets.open(sealed, context);
  } catch {
    return undefined;
  }
}

function toApi(row: ToolRow, secrets: SecretBox): ToolOut {
  const config = row.config as StoredConfig;
  const masked = (name: string, sealed: string) => maskSecret(opened(secrets, sealed, sealContext(row.organizationId, name)) ?? '');
  const maskAll = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).map(([name, sealed]) => [name, masked(name, sealed)]));
  const http = config.http ? { ...config.http, secret_headers: maskAll(config.http.secret_headers) } : null;
  const mcp = config.mcp ? { ...config.mcp, secret_headers: maskAll(config.mcp.secret_headers) } : null;
  return {
    id: row.id,
    name: row.name,
    description: row.description ?? '',
    type: row.type as ToolOut['type'],
    enabled: row.enabled,
    parameters: config.parameters,
    http,
    transfer: storedTransfer(config.transfer),
    mcp,
    messages: config.messages,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The tool as stored: checked whole, its secret headers sealed, a masked value replaced by the stored one it masks. */
function storable(
  organizationId: number,
  tool: ToolCreateIn,
  previous: StoredConfig | null,
  deps: ToolDeps,
): { columns: Omit<ToolCreateIn, 'parameters' | 'http' | 'transfer' | 'mcp' | 'messages'>; config: StoredConfig } {
  const problems = toolProblems(tool, deps.policy);
  if (problems.length > 0) throw new ValidationFailed(problems);
  // The credentials go with the request of an http tool, or to the server of an mcp tool.
  const where = tool.mcp ? 'mcp' : 'http';
  const target = tool.mcp ?? tool.http;
  const before = previous?.[where] ?? null;
  const stored = before?.secret_headers ?? {};
  const sealed: Record<string, string> = {};
  // A stored credential goes only where it went before: moving the tool to another host takes the credential sent
  // again, or anyone who may edit the tool could have it sent to a server of theirs.
  const moved = before !== null && target !== null && originOf(before.url) !== originOf(target.url);
  const kept: ValidationDetail[] = [];
  for (const [name, value] of Object.entries(target?.secret_headers ?? {})) {
    const context = sealContext(organizationId, name);
    const keptSealed = stored[name] ?? Object.entries(stored).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
    const current = keptSealed === undefined ? undefined : opened(deps.secrets, keptSealed, context);
    // A credential sealed under another SECRETS_KEY reads as a bare mask: sent back, it is kept as it is (it opens
    // again if that key returns), not replaced by the mask.
    const keeps = keptSealed !== undefined && (current !== undefined ? isMaskOf(value, current) : value === maskSecret(''));
    if (!keeps && isMasked(value)) {
      kept.push({
        loc: ['body', where, 'secret_headers', name],
        msg: 'This is a masked value, not a credential: send the value itself, or the mask this header was read with',
        type: 'value_error',
      });
      continue;
    }
    if (keeps && moved)
      kept.push({
        loc: ['body', where, 'secret_headers', name],
        msg: "The tool's URL moves to another host: send this credential again",
        type: 'value_error',
      });
    sealed[name] = keeps ? keptSealed : deps.secrets.seal(value, context);
  }
  if (kept.length > 0) throw new ValidationFailed(kept);
  const { parameters, http, transfer, mcp, messages, ...columns } = tool;
  // A knowledge search takes its query; an MCP server's tools bring their own schemas.
  const fixed = tool.type === 'knowledge_search' ? KNOWLEDGE_TOOL_PARAMETERS : tool.type === 'mcp' ? { type: 'object', properties: {} } : parameters;
  return {
    columns,
    config: {
      parameters: fixed,
      http: http ? { ...http, secret_headers: sealed } : null,
      transfer,
      mcp: mcp ? { ...mcp, secret_headers: sealed } : null,
      messages,
    },
  };
}

/** Scheme, host and port of a URL template (its host is literal: modules/tools/validation.ts); placeholders elsewhere are neutral. */
function originOf(urlTemplate: string): string {
  try {
    return new URL(urlTemplate.replace(/\{\{[^}]*\}\}/g, 'x')).origin;
  } catch {
    return urlTemplate;
  }
}

function nameTaken(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';
}

const taken = (name: string) => new AppError('conflict', `A tool named ${name} exists in this organisation`, { name });

export async function createTool(
  deps: ToolDeps,
  organizationId: number,
  tool: Omit<ToolCreateIn, 'mcp'> & Partial<Pick<ToolCreateIn, 'mcp'>>,
): Promise<ToolOut> {
  // `mcp` came after the other configs: code that makes tools without naming it makes one with none.
  const input: ToolCreateIn = { ...tool, mcp: tool.mcp ?? null };
  const { columns, config } = storable(organizationId, input, null, deps);
  try {
    const row = await deps.db.tool.create({ data: { organizationId, ...columns, config: config as unknown as Prisma.InputJsonValue } });
    return toApi(row, deps.secrets);
  } catch (error) {
    if (nameTaken(error)) throw taken(input.name);
    throw error;
  }
}

async function findRow(db: Db, organizationId: number, id: number): Promise<ToolRow> {
  const row = await db.tool.findFirst({ where: { id, organizationId } });
  if (!row) throw notFound('Tool');
  return row;
}

export async function getTool(deps: ToolDeps, organizationId: number, id: number): Promise<ToolOut> {
  return toApi(await findRow(deps.db, organizationId, id), deps.secrets);
}

export async function listTools(deps: ToolDeps, organizationId: number, page: number, perPage: number) {
  const [rows, total] = await Promise.all([
    deps.db.tool.findMany({ where: { organizationId }, orderBy: { id: 'desc' }, skip: (page - 1) * perPage, take: perPage }),
    deps.db.tool.count({ where: { organizationId } }),
  ]);
  return { data: rows.map((row) => toApi(row, deps.secrets)), pagination: paginationOf(page, perPage, total) };
}

export async function updateTool(deps: ToolDeps, organizationId: number, id: number, patch: ToolUpdateIn): Promise<ToolOut> {
  const row = await findRow(deps.db, organizationId, id);
  const current = toApi(row, deps.secrets);
  const { id: _id, created_at: _c, updated_at: _u, ...fields } = current;
  const merged = ToolCreate.safeParse({ ...fields, ...patch });
  if (!merged.success) {
    throw new ValidationFailed(
      merged.error.issues.map((issue) => ({
        loc: ['body', ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
        msg: issue.message,
        type: 'value_error',
      })),
    );
  }
  const { columns, config } = storable(organizationId, merged.data, row.config as StoredConfig, deps);
  try {
    // The row's organisation is in the filter: an id of another organisation's tool updates nothing.
    const updated = await deps.db.tool.update({
      where: { id: row.id, organizationId },
      data: { ...columns, config: config as unknown as Prisma.InputJsonValue },
    });
    return toApi(updated, deps.secrets);
  } catch (error) {
    if (nameTaken(error)) throw taken(merged.data.name);
    throw error;
  }
}

/** Deletes the tool; assistants it was assigned to lose it (their assignments cascade). */
export async function deleteTool(deps: ToolDeps, organizationId: number, id: number): Promise<void> {
  const { count } = await deps.db.tool.deleteMany({ where: { id, organizationId } });
  if (count === 0) throw notFound('Tool');
}

/**
 * Runs an HTTP tool once as a call would, with the arguments, variables and contact given, and answers what was sent
 * (credentials redacted), what came back, and what the model would be told. Built-ins act on a call and are tried in
 * one.
 */
export async function testTool(deps: ToolDeps, organizationId: number, id: number, input: z.output<typeof ToolTestRequest>): Promise<HttpToolResult> {
  const row = await findRow(deps.db, organizationId, id);
  const config = row.config as StoredConfig;
  if (row.type !== 'http' || !config.http) throw new AppError('conflict', `A ${row.type} tool acts on a call: try it in a call or a test run`);
  if (input.contact_id !== null && (await deps.db.contact.count({ where: { id: input.contact_id, organizationId } })) === 0) {
    throw new ValidationFailed([{ loc: ['body', 'contact_id'], msg: 'No such contact', type: 'not_found' }]);
  }
  const contact = await loadContactFields(deps.db, organizationId, input.contact_id);
  const secretHeaders = openedSecretHeaders(deps.secrets, organizationId, config.http.secret_headers);
  const { http } = config;
  return executeHttpTool(
    { method: http.method, url: http.url, headers: http.headers, query: http.query, body: http.body, secretHeaders, timeoutMs: http.timeout_ms },
    { variables: input.variables, contact, args: input.arguments },
    { allowPrivateTargets: deps.policy.allowPrivateTargets },
  );
}

/** A tool's credential headers, opened for a request; one sealed under another key is left out. */
export function openedSecretHeaders(secrets: SecretBox, organizationId: number, sealed: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(sealed).flatMap(([name, value]) => {
      const plain = opened(secrets, value, sealContext(organizationId, name));
      return plain === undefined ? [] : [[name, plain]];
    }),
  );
}

/** The tools an mcp tool's server lists, each marked offered or not: what the team chooses from. */
export async function listMcpToolServerTools(deps: ToolDeps, organizationId: number, id: number): Promise<z.output<typeof McpServerTools>> {
  const row = await findRow(deps.db, organizationId, id);
  const config = row.config as StoredConfig;
  if (row.type !== 'mcp' || !config.mcp) throw new AppError('conflict', `A ${row.type} tool has no MCP server`);
  const { mcp } = config;
  const listed = await listMcpServerTools(
    { url: mcp.url, secretHeaders: openedSecretHeaders(deps.secrets, organizationId, mcp.secret_headers), timeoutMs: mcp.timeout_ms },
    { allowPrivateTargets: deps.policy.allowPrivateTargets },
  );
  const chosen = mcp.tools === null ? null : new Set(mcp.tools);
  return {
    tools: listed.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema, offered: chosen === null || chosen.has(t.name) })),
    duration_ms: listed.duration_ms,
    error: listed.error,
  };
}
