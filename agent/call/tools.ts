import { llm } from '@livekit/agents';
import type { CallTool } from '../../modules/tools/call-tools.js';
import { executeHttpTool, type HttpToolResult } from '../../modules/tools/http-executor.js';
import type { ToolValues } from '../../modules/tools/render.js';

// The assistant's tools as the call's model is offered them, through the framework's tool context. An HTTP tool's
// call goes out through the executor (modules/tools/http-executor.ts) with the call's variables and contact, bounded by
// the tool's timeout whatever else happens in the call, and following the framework's abort signal (which 1.9 does not
// fire when the caller speaks during the tool: docs/tools.md). A failure reaches the model as one (ToolError). Built-ins that act
// on the line (transfer, DTMF) are offered once the call runtime can carry them out.

export interface CallToolOptions {
  /** The call's variables and contact: `{{var.*}}`, `{{contact.*}}`. */
  values: Omit<ToolValues, 'args'>;
  allowPrivateTargets: boolean;
  /** Each HTTP call's outcome, by the framework's tool call id: the transcript records its status and duration. */
  onHttpResult: (toolCallId: string, result: HttpToolResult) => void;
}

/** The tools of the call, as the framework's tool list (`Agent`'s `tools`). */
export function callToolContext(tools: CallTool[], options: CallToolOptions): llm.ToolContextLike {
  const context = [];
  for (const tool of tools) {
    const http = tool.http;
    if (tool.type !== 'http' || !http) continue;
    // The schema was checked when the tool was saved (modules/tools/validation.ts); the framework takes it as JSON Schema.
    const parameters = tool.parameters as Parameters<typeof llm.tool>[0]['parameters'] & object;
    context.push(llm.tool({
      name: tool.name,
      description: tool.description,
      parameters,
      execute: async (args, { toolCallId, abortSignal }) => {
        const result = await executeHttpTool(http, { ...options.values, args: (args ?? {}) as Record<string, unknown> }, { allowPrivateTargets: options.allowPrivateTargets, signal: abortSignal });
        options.onHttpResult(toolCallId, result);
        if (result.is_error) throw new llm.ToolError(result.output);
        return asValue(result.output);
      },
    }));
  }
  return context;
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
