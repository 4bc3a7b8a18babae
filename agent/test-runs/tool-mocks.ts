import { llm } from '@livekit/agents';
import { type CallTool, executeHttpTool, type ToolValues } from '../../modules/tools/index.js';
import { mcpFunctionName, type McpServers } from '../call/mcp-tools.js';

// The tools of a test run: the same tools a call offers its model, with the same names, descriptions and parameters,
// but answered by mocks unless the run asks for the real thing. A mock is the JSON the run gave for the tool, or a
// failure when that JSON is an object whose `error` is set (the rule the HTTP executor applies to a real answer); a
// tool without a mock answers GENERIC_MOCK_RESULT. Built-ins act on a phone line, which a text run does not have, so
// they are always mocked; an `end_call` that succeeds ends the conversation after its reply.

/** What a mocked tool without a canned result answers. */
export const GENERIC_MOCK_RESULT = { success: true } as const;
const BUILT_INS = new Set(['end_call', 'transfer_call', 'send_dtmf']);

export interface ToolPolicy {
  mocks: Record<string, unknown>;
  /** true: every tool without a mock runs for real; a list: those tools do. */
  useRealTools: boolean | string[];
  /** The run's variables and contact: `{{var.*}}`, `{{contact.*}}` of a real tool's request. */
  values: Omit<ToolValues, 'args'>;
  allowPrivateTargets: boolean;
}

export interface ToolCallRecord {
  /** Whether the call was answered by a mock. */
  mocked: boolean;
}

export interface TestRunTools {
  /** The `toolsFor` of the assistant's agent: the framework's tools for these tools. */
  toolsFor(tools: CallTool[]): llm.ToolContextLike;
  /** Whether the call with this id was mocked. */
  mocked(toolCallId: string): boolean;
  /** Set once an `end_call` has been answered with success. */
  readonly ended: boolean;
}

export function isErrorMock(value: unknown): value is { error: unknown } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const error = (value as { error?: unknown }).error;
  return error !== undefined && error !== null && error !== false && error !== '';
}

function runsForReal(tool: CallTool, policy: ToolPolicy): boolean {
  if (BUILT_INS.has(tool.type) || Object.hasOwn(policy.mocks, tool.name)) return false;
  return policy.useRealTools === true || (Array.isArray(policy.useRealTools) && policy.useRealTools.includes(tool.name));
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

export function testRunTools(policy: ToolPolicy, mcp?: McpServers): TestRunTools {
  const mockedIds = new Set<string>();
  let ended = false;
  // An mcp tool offers its server's tools as a call does; each is mocked by its function's name unless it runs for real
  // (use_real_tools naming the function or the mcp tool).
  const mcpBuild = (tool: CallTool): llm.FunctionTool<any, any, any>[] => {
    const offer = mcp?.offers.get(tool.name);
    if (!offer) return [];
    return offer.tools.map((serverTool) => {
      const name = mcpFunctionName(tool.name, serverTool.name);
      const mocked = Object.hasOwn(policy.mocks, name);
      const listed = Array.isArray(policy.useRealTools) && (policy.useRealTools.includes(name) || policy.useRealTools.includes(tool.name));
      const real = !mocked && (policy.useRealTools === true || listed);
      return llm.tool({
        name,
        description: serverTool.description,
        parameters: serverTool.inputSchema as Parameters<typeof llm.tool>[0]['parameters'] & object,
        execute: async (args, { toolCallId, abortSignal }) => {
          if (real) {
            const result = await offer.connection.callTool(serverTool.name, (args ?? {}) as Record<string, unknown>, abortSignal);
            if (result.is_error) throw new llm.ToolError(result.output);
            return asValue(result.output);
          }
          mockedIds.add(toolCallId);
          const mock = mocked ? policy.mocks[name] : GENERIC_MOCK_RESULT;
          if (isErrorMock(mock)) throw new llm.ToolError(typeof mock.error === 'string' ? mock.error : JSON.stringify(mock.error));
          return mock;
        },
      }) as llm.FunctionTool<any, any, any>;
    });
  };
  const build = (tool: CallTool): llm.FunctionTool<any, any, any> | undefined => {
    if (tool.type === 'http' && !tool.http) return undefined;
    const parameters = tool.parameters as Parameters<typeof llm.tool>[0]['parameters'] & object;
    const real = runsForReal(tool, policy);
    return llm.tool({
      name: tool.name,
      description: tool.description,
      parameters,
      execute: async (args, { toolCallId, abortSignal }) => {
        if (real && tool.http) {
          const result = await executeHttpTool(
            tool.http,
            { ...policy.values, args: (args ?? {}) as Record<string, unknown> },
            { allowPrivateTargets: policy.allowPrivateTargets, signal: abortSignal },
          );
          if (result.is_error) throw new llm.ToolError(result.output);
          return asValue(result.output);
        }
        mockedIds.add(toolCallId);
        const mock = Object.hasOwn(policy.mocks, tool.name) ? policy.mocks[tool.name] : GENERIC_MOCK_RESULT;
        if (isErrorMock(mock)) throw new llm.ToolError(typeof mock.error === 'string' ? mock.error : JSON.stringify(mock.error));
        if (tool.type === 'end_call') ended = true;
        return mock;
      },
    }) as llm.FunctionTool<any, any, any>;
  };
  return {
    toolsFor: (tools) => tools.flatMap((tool) => (tool.type === 'mcp' ? mcpBuild(tool) : (build(tool) ?? []))),
    mocked: (id) => mockedIds.has(id),
    get ended() {
      return ended;
    },
  };
}
