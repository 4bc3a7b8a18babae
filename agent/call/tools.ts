import { llm } from '@livekit/agents';
import type { CallTool } from '../../modules/tools/call-tools.js';
import { executeHttpTool, type HttpToolResult } from '../../modules/tools/http-executor.js';
import type { ToolValues } from '../../modules/tools/render.js';
import type { ToolRuns } from './tool-runs.js';
import type { CallLineTools } from './line-tools.js';

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
}

/** The tools of the call, as the framework's tool list (`Agent`'s `tools`). */
export function callToolContext(tools: CallTool[], options: CallToolOptions): llm.ToolContextLike {
  const context = [];
  for (const tool of tools) {
    const http = tool.http;
    if (tool.type !== 'http') {
      const builtIn = options.line?.toolFor(tool);
      if (builtIn) context.push(builtIn);
      continue;
    }
    if (!http) continue;
    // The schema was checked when the tool was saved (modules/tools/validation.ts); the framework takes it as JSON Schema.
    const parameters = tool.parameters as Parameters<typeof llm.tool>[0]['parameters'] & object;
    context.push(llm.tool({
      name: tool.name,
      description: tool.description,
      parameters,
      execute: async (args, { toolCallId, abortSignal, ctx }) => {
        const call = { id: toolCallId, name: tool.name, args, interruptible: ctx.speechHandle.allowInterruptions, signal: abortSignal };
        const result = await options.runs.run(call, tool.messages, async (signal) => {
          const answer = await executeHttpTool(http, { ...options.values, args: (args ?? {}) as Record<string, unknown> }, { allowPrivateTargets: options.allowPrivateTargets, signal });
          options.onHttpResult(toolCallId, answer);
          return { value: answer, failed: answer.is_error };
        });
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
