import type { Db } from '../../prisma/client.js';
import type { Tool as ToolRow } from '../../prisma/generated/client.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { openedSecretHeaders, type StoredConfig } from './service.js';
import { storedTransfer, type ToolOut } from './schemas.js';
import type { HttpToolConfig } from './http-executor.js';
import type { McpTarget } from './mcp-client.js';

// The tools a call offers its model: the assistant's assigned tools that are enabled, in the order they were assigned,
// each with what running it needs (an HTTP tool's credential headers opened).

export interface CallTool {
  name: string;
  description: string;
  type: ToolOut['type'];
  parameters: Record<string, unknown>;
  /** HTTP tools: the request, credentials opened. */
  http: HttpToolConfig | null;
  transfer: ToolOut['transfer'];
  /** MCP tools: the server, credentials opened, and the names of its tools offered (null: all). */
  mcp?: (McpTarget & { tools: string[] | null }) | null;
  messages: ToolOut['messages'];
}

export async function loadCallTools(db: Db, secrets: SecretBox, organizationId: number, assistantId: number): Promise<CallTool[]> {
  const assigned = await db.assistantTool.findMany({
    where: { assistantId, tool: { organizationId, enabled: true } },
    orderBy: { position: 'asc' },
    include: { tool: true },
  });
  return assigned.map(({ tool }) => callToolOf(tool, organizationId, secrets));
}

/** The enabled tools of these ids, in the order given: a draft's tools, which are not assigned yet. */
export async function loadToolsByIds(db: Db, secrets: SecretBox, organizationId: number, ids: readonly number[]): Promise<CallTool[]> {
  const rows = await db.tool.findMany({ where: { organizationId, enabled: true, id: { in: [...ids] } } });
  return ids.flatMap((id) => {
    const tool = rows.find((r) => r.id === id);
    return tool ? [callToolOf(tool, organizationId, secrets)] : [];
  });
}

/**
 * A stored tool as a session runs it. Without `secrets` (a caller that must not open credentials), an HTTP tool's
 * credential headers are left out.
 */
export function callToolOf(
  tool: Pick<ToolRow, 'name' | 'description' | 'type'> & { config: unknown },
  organizationId: number,
  secrets: SecretBox | undefined,
): CallTool {
  const config = tool.config as unknown as StoredConfig;
  const http = config.http;
  return {
    name: tool.name,
    description: tool.description ?? '',
    type: tool.type as ToolOut['type'],
    parameters: config.parameters,
    http: http
      ? {
          method: http.method,
          url: http.url,
          headers: http.headers,
          query: http.query,
          body: http.body,
          secretHeaders: secrets ? openedSecretHeaders(secrets, organizationId, http.secret_headers) : {},
          timeoutMs: http.timeout_ms,
        }
      : null,
    transfer: storedTransfer(config.transfer),
    mcp: config.mcp
      ? {
          url: config.mcp.url,
          secretHeaders: secrets ? openedSecretHeaders(secrets, organizationId, config.mcp.secret_headers) : {},
          timeoutMs: config.mcp.timeout_ms,
          tools: config.mcp.tools,
        }
      : null,
    messages: config.messages,
  };
}
