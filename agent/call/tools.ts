import { llm } from '@livekit/agents';
import { type CallTool, executeHttpTool, type HttpToolResult, type ToolValues } from '../../modules/tools/index.js';
import type { ToolRuns } from './tool-runs.js';
import type { CallLineTools } from './line-tools.js';
import type { SearchResult } from '../../modules/knowledge/index.js';
import { mcpFunctions, type McpServers } from './mcp-tools.js';

// The assistant's tools as the call's model is offered them, through the framework's tool context. An HTTP tool's
// call goes out through the executor (modules/tools/http-executor.ts) with the call's variables and contact, bounded by
// the tool's timeout whatever else happens in the call, and cancelled when the caller takes the turn (tool-runs.ts, which
// also speaks the tool's messages). A failure reaches the model as one (ToolError).

export interface CallToolOptions {
  /** The call's variables and contact: `{{var.*}}`, `{{contact.*}}`. */
  values: Omit<ToolValues, 'args'>;
  allowPrivateTargets: boolean;
  /** Each HTTP call's outcome, by the framework's tool call id: the transcript records its status and duration. */
  onHttpResult: (toolCallId: string, result: HttpToolResult) => void;
  /** The call's running tool calls: messages and cancellation. */
  runs: ToolRuns;
  /** The built-ins that act on the call's line: end_call, transfer_call, send_dtmf (line-tools.ts). */
  line?: CallLineTools | undefined;
  /** Searches the assistant's knowledge, for knowledge_search tools. */
  knowledge?: ((query: string, signal: AbortSignal) => Promise<SearchResult>) | undefined;
  /** The mcp tools' servers, connected, with the tools each offers (mcp-tools.ts). */
  mcp?: McpServers | undefined;
  /** Each MCP tool call's duration, by the framework's tool call id: the transcript records it. */
  onMcpResult?: (toolCallId: string, result: { duration_ms: number }) => void;
}

/** The tools of the call, as the framework's tool list (`Agent`'s `tools`). */
export function callToolContext(tools: CallTool[], options: CallToolOptions): llm.ToolContextLike {
  const context = [];
  for (const tool of tools) {
    const http = tool.http;
    if (tool.type === 'knowledge_search') {
      if (options.knowledge) context.push(knowledgeTool(tool, options.knowledge, options.runs));
      continue;
    }
    if (tool.type === 'mcp') {
      const offer = options.mcp?.offers.get(tool.name);
      if (offer) context.push(...mcpFunctions(tool, offer, options.runs, (id, result) => options.onMcpResult?.(id, result)));
      continue;
    }
    if (tool.type !== 'http') {
      const builtIn = options.line?.toolFor(tool);
      if (builtIn) context.push(builtIn);
      continue;
    }
    if (!http) continue;
    // The schema was checked when the tool was saved (modules/tools/validation.ts); the framework takes it as JSON Schema.
    const parameters = tool.parameters as Parameters<typeof llm.tool>[0]['parameters'] & object;
    context.push(
      llm.tool({
        name: tool.name,
        description: tool.description,
        parameters,
        execute: async (args, { toolCallId, abortSignal, ctx }) => {
          const call = { id: toolCallId, name: tool.name, args, interruptible: ctx.speechHandle.allowInterruptions, signal: abortSignal };
          const result = await options.runs.run(call, tool.messages, async (signal) => {
            const answer = await executeHttpTool(
              http,
              { ...options.values, args: (args ?? {}) as Record<string, unknown> },
              { allowPrivateTargets: options.allowPrivateTargets, signal },
            );
            options.onHttpResult(toolCallId, answer);
            return { value: answer, failed: answer.is_error };
          });
          if (result.is_error) throw new llm.ToolError(result.output);
          return asValue(result.output);
        },
      }),
    );
  }
  return context;
}

const KNOWLEDGE_DESCRIPTION =
  'Searches the knowledge base (the documents attached to you) for what the caller asks about. Use it when the ' +
  'passages you were given do not answer, or to look something up the caller did not ask in those words.';

/** A knowledge_search tool: the assistant's hybrid search, its passages returned with where they come from. */
function knowledgeTool(tool: CallTool, search: NonNullable<CallToolOptions['knowledge']>, runs: ToolRuns) {
  return llm.tool({
    name: tool.name,
    description: tool.description || KNOWLEDGE_DESCRIPTION,
    parameters: tool.parameters as Parameters<typeof llm.tool>[0]['parameters'] & object,
    execute: async (args, { toolCallId, abortSignal, ctx }) => {
      const query = typeof (args as { query?: unknown })?.query === 'string' ? (args as { query: string }).query : '';
      if (!query.trim()) throw new llm.ToolError('Give a query: what to look up.');
      const call = { id: toolCallId, name: tool.name, args, interruptible: ctx.speechHandle.allowInterruptions, signal: abortSignal };
      return runs.run(call, tool.messages, async (signal) => {
        let found: SearchResult;
        try {
          found = await search(query, signal);
        } catch {
          throw new llm.ToolError('The knowledge base could not be searched just now.');
        }
        const passages = found.hits.map((h) => ({ source: [h.document_name, ...h.heading_path].join(' › '), text: h.content }));
        return { value: passages.length ? { passages } : { passages: [], note: 'Nothing in the knowledge base matches.' }, failed: false };
      });
    },
  });
}

/**
 * A JSON answer as its value: the framework serialises what a tool returns, so returning the text would give the model
 * JSON quoted inside a string. Text that is not JSON (or was cut) stays text.
 */
function asValue(output: string): unknown {
  try {
    return JSON.parse(output) as unknown;
  } catch {
    return output;
  }
}
