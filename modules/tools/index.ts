// The public face of modules/tools/: what code outside it (other modules, the API, the call runtime, the benchmarks)
// may use, and nothing else, so its other files can change without a search through both processes. Files inside the
// module import one another directly, never this one (docs/architecture.md, "Import rules").

export { type CallTool, callToolOf, loadCallTools, loadToolsByIds } from './call-tools.js';
export { executeHttpTool, type HttpToolResult } from './http-executor.js';
export { type McpCallResult, McpConnection, type McpToolInfo } from './mcp-client.js';
export type { ToolValues } from './render.js';
export {
  KNOWLEDGE_TOOL_PARAMETERS,
  McpServerTools,
  Tool,
  TOOL_NAME,
  ToolCreate,
  type ToolOut,
  ToolParams,
  ToolTestRequest,
  ToolTestResult,
  ToolUpdate,
} from './schemas.js';
export { createTool, deleteTool, getTool, listMcpToolServerTools, listTools, testTool, type ToolDeps, updateTool } from './service.js';
