import { llm, log } from '@livekit/agents';
import { type CallTool, McpConnection, type McpToolInfo, TOOL_NAME } from '../../modules/tools/index.js';
import type { ToolRuns } from './tool-runs.js';

// The MCP tools of a call: each mcp tool's server is connected to and its tools listed as the call starts (while the
// session loads, so a server that answers within that time delays nothing), and the tools it offers become functions
// the model may call, named `<tool>_<server tool>`. A call runs through the call's tool runs (its spoken messages,
// cancellation when the caller takes the turn) and the server's answer, or its failure, is what the model reads. A
// server that cannot be reached offers nothing to that call; the log says which tool and why. Connections close with
// the call.

export interface McpOffer {
  connection: McpConnection;
  tools: McpToolInfo[];
}

export interface McpServers {
  /** The offers of the reachable servers, by the mcp tool's name. */
  offers: Map<string, McpOffer>;
  close(): Promise<void>;
}

/** Opens every mcp tool's server at once, each within its own timeout. */
export async function openMcpServers(
  tools: CallTool[],
  options: { allowPrivateTargets: boolean; signal?: AbortSignal | undefined; logFields?: Record<string, unknown> },
): Promise<McpServers> {
  const offers = new Map<string, McpOffer>();
  await Promise.all(
    tools.map(async (tool) => {
      if (tool.type !== 'mcp' || !tool.mcp) return;
      let connection: McpConnection | undefined;
      try {
        connection = await McpConnection.open(tool.mcp, options);
        const listed = await connection.listTools(options.signal);
        const chosen = tool.mcp.tools === null ? null : new Set(tool.mcp.tools);
        offers.set(tool.name, { connection, tools: listed.filter((t) => chosen === null || chosen.has(t.name)) });
      } catch (error) {
        await connection?.close();
        log().warn({ ...options.logFields, tool: tool.name, err: error }, 'MCP server not available to this call');
      }
    }),
  );
  return { offers, close: async () => void (await Promise.all([...offers.values()].map((o) => o.connection.close()))) };
}

/** The function the model calls for one of a server's tools: the mcp tool's name, then the server's, as a model allows. */
export function mcpFunctionName(toolName: string, serverTool: string): string {
  const name = `${toolName}_${serverTool}`.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  return TOOL_NAME.test(name) ? name : `t${name}`.slice(0, 64);
}

/** An mcp tool's offered server tools as the framework's functions. */
export function mcpFunctions(
  tool: CallTool,
  offer: McpOffer,
  runs: ToolRuns,
  onResult: (toolCallId: string, result: { duration_ms: number }) => void,
): llm.FunctionTool<any, any, any>[] {
  return offer.tools.map(
    (serverTool) =>
      llm.tool({
        name: mcpFunctionName(tool.name, serverTool.name),
        description: serverTool.description,
        // The server's JSON Schema of the arguments, as it listed it.
        parameters: serverTool.inputSchema as Parameters<typeof llm.tool>[0]['parameters'] & object,
        execute: async (args, { toolCallId, abortSignal, ctx }) => {
          const call = { id: toolCallId, name: tool.name, args, interruptible: ctx.speechHandle.allowInterruptions, signal: abortSignal };
          const result = await runs.run(call, tool.messages, async (signal) => {
            const answer = await offer.connection.callTool(serverTool.name, (args ?? {}) as Record<string, unknown>, signal);
            onResult(toolCallId, answer);
            return { value: answer, failed: answer.is_error };
          });
          if (result.is_error) throw new llm.ToolError(result.output);
          try {
            return JSON.parse(result.output) as unknown;
          } catch {
            return result.output;
          }
        },
      }) as llm.FunctionTool<any, any, any>,
  );
}
