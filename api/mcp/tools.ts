import { z } from 'zod';

// What the platform offers a coding agent over MCP, each an operation of the REST API: the agent builds an assistant,
// gives it tools and documents, tests it in text and reads the result, then reads calls and charts, with the same
// bodies, answers and errors as /api. A tool names its request; server.ts makes it through the API itself, so the
// tenancy, validation and rate limits are the REST API's own.

export interface ApiRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  url: string;
  body?: unknown;
}

export interface PlatformTool {
  name: string;
  title: string;
  description: string;
  input: z.ZodRawShape;
  readOnly: boolean;
  request(args: Record<string, unknown>): ApiRequest;
}

const id = (what: string) => z.int().min(1).max(2_147_483_647).describe(`The ${what}'s id`);
const body = (what: string) => z.record(z.string(), z.unknown()).describe(`${what}: the JSON body of the REST operation (the openapi resource has its schema)`);
const page = { page: z.int().min(1).optional(), per_page: z.int().min(1).max(100).optional() };

/** A query string of the arguments given, in order; values are encoded. */
function query(args: Record<string, unknown>, names: string[]): string {
  const pairs = names.flatMap((name) => {
    const value = args[name];
    if (value === undefined || value === null) return [];
    return (Array.isArray(value) ? value : [value]).map((v) => `${encodeURIComponent(name)}=${encodeURIComponent(String(v))}`);
  });
  return pairs.length > 0 ? `?${pairs.join('&')}` : '';
}

export const PLATFORM_TOOLS: PlatformTool[] = [
  {
    name: 'list_assistants',
    title: 'List assistants',
    description: 'The organisation’s assistants, newest first, with their settings.',
    input: page,
    readOnly: true,
    request: (a) => ({ method: 'GET', url: `/api/assistants${query(a, ['page', 'per_page'])}` }),
  },
  {
    name: 'get_assistant',
    title: 'Get an assistant',
    description: 'One assistant with every setting, and `warnings` naming vendor keys its calls would lack.',
    input: { assistant_id: id('assistant') },
    readOnly: true,
    request: (a) => ({ method: 'GET', url: `/api/assistants/${a.assistant_id}` }),
  },
  {
    name: 'create_assistant',
    title: 'Create an assistant',
    description: 'Creates an assistant from `settings` (POST /api/assistants: `name` is required, every other setting has a default).',
    input: { settings: body('The assistant') },
    readOnly: false,
    request: (a) => ({ method: 'POST', url: '/api/assistants', body: a.settings }),
  },
  {
    name: 'update_assistant',
    title: 'Change an assistant',
    description: 'Changes the settings given and keeps the rest (PATCH /api/assistants/{id}: nested settings merge field by field).',
    input: { assistant_id: id('assistant'), changes: body('The settings to change') },
    readOnly: false,
    request: (a) => ({ method: 'PATCH', url: `/api/assistants/${a.assistant_id}`, body: a.changes }),
  },
  {
    name: 'save_draft',
    title: "Change an assistant's draft",
    description:
      'Saves changes to the draft, not to the live assistant (PATCH /api/assistants/{id}/draft): test runs use the draft, calls keep the current version until publish_draft.',
    input: { assistant_id: id('assistant'), changes: body('The settings to change in the draft') },
    readOnly: false,
    request: (a) => ({ method: 'PATCH', url: `/api/assistants/${a.assistant_id}/draft`, body: a.changes }),
  },
  {
    name: 'publish_draft',
    title: "Publish an assistant's draft",
    description: 'Makes the draft the current settings as the next version (POST /api/assistants/{id}/draft/publish).',
    input: { assistant_id: id('assistant') },
    readOnly: false,
    request: (a) => ({ method: 'POST', url: `/api/assistants/${a.assistant_id}/draft/publish` }),
  },
  {
    name: 'list_versions',
    title: "List an assistant's versions",
    description: 'Every saved change, newest first, with who saved it and which settings changed.',
    input: { assistant_id: id('assistant'), ...page },
    readOnly: true,
    request: (a) => ({ method: 'GET', url: `/api/assistants/${a.assistant_id}/versions${query(a, ['page', 'per_page'])}` }),
  },
  {
    name: 'restore_version',
    title: 'Make a former version current again',
    description: 'As a new version (POST /api/assistants/{id}/versions/{n}/restore).',
    input: { assistant_id: id('assistant'), version: id('version') },
    readOnly: false,
    request: (a) => ({ method: 'POST', url: `/api/assistants/${a.assistant_id}/versions/${a.version}/restore` }),
  },
  {
    name: 'list_tools',
    title: 'List tools',
    description: 'The functions assistants may call: HTTP requests and built-in actions.',
    input: page,
    readOnly: true,
    request: (a) => ({ method: 'GET', url: `/api/tools${query(a, ['page', 'per_page'])}` }),
  },
  {
    name: 'create_tool',
    title: 'Create a tool',
    description: 'Creates a tool (POST /api/tools); assign it with update_assistant’s `assigned_tools`.',
    input: { definition: body('The tool') },
    readOnly: false,
    request: (a) => ({ method: 'POST', url: '/api/tools', body: a.definition }),
  },
  {
    name: 'list_documents',
    title: 'List documents',
    description: 'The knowledge documents, with their processing status.',
    input: page,
    readOnly: true,
    request: (a) => ({ method: 'GET', url: `/api/documents${query(a, ['page', 'per_page'])}` }),
  },
  {
    name: 'add_document',
    title: 'Add a document',
    description: 'Adds a knowledge document from text or a URL (POST /api/documents); attach it with update_assistant’s `assigned_documents`.',
    input: { document: body('The document') },
    readOnly: false,
    request: (a) => ({ method: 'POST', url: '/api/documents', body: a.document }),
  },
  {
    name: 'start_test_run',
    title: 'Test an assistant in text',
    description:
      'Queues a scripted or simulated conversation with the assistant, judged by assertions (POST /api/assistants/{id}/test-runs). Read the result with get_test_run once its status is completed.',
    input: { assistant_id: id('assistant'), test: body('The test run') },
    readOnly: false,
    request: (a) => ({ method: 'POST', url: `/api/assistants/${a.assistant_id}/test-runs`, body: a.test }),
  },
  {
    name: 'get_test_run',
    title: 'Read a test run',
    description: 'A test run’s status and, once completed, each repetition’s transcript and the verdict of each assertion.',
    input: { test_run_id: id('test run') },
    readOnly: true,
    request: (a) => ({ method: 'GET', url: `/api/test-runs/${a.test_run_id}` }),
  },
  {
    name: 'list_calls',
    title: 'List calls',
    description: 'Calls, newest first, filtered by status, assistant or time.',
    input: {
      ...page,
      status: z.string().max(40).optional(),
      assistant_id: z.int().min(1).optional(),
      created_after: z.string().max(40).optional().describe('ISO 8601 date-time or date'),
      created_before: z.string().max(40).optional(),
    },
    readOnly: true,
    request: (a) => ({ method: 'GET', url: `/api/calls${query(a, ['page', 'per_page', 'status', 'assistant_id', 'created_after', 'created_before'])}` }),
  },
  {
    name: 'get_call',
    title: 'Read a call',
    description: 'One call: status, end reason, summary, outcomes, latency, cost and recordings.',
    input: { call_sid: z.string().min(1).max(64).describe('The call’s `call_sid`') },
    readOnly: true,
    request: (a) => ({ method: 'GET', url: `/api/calls/${encodeURIComponent(String(a.call_sid))}` }),
  },
  {
    name: 'get_call_transcript',
    title: 'Read a call’s transcript',
    description: 'Each turn of a call in spoken order, with latencies, tool calls and the knowledge each reply was given.',
    input: { call_sid: z.string().min(1).max(64) },
    readOnly: true,
    request: (a) => ({ method: 'GET', url: `/api/calls/${encodeURIComponent(String(a.call_sid))}/transcript` }),
  },
  {
    name: 'query_analytics',
    title: 'Query analytics',
    description: 'Counts, durations, costs and latencies of calls over a period, grouped as asked (POST /api/analytics/query).',
    input: { query: body('The analytics query') },
    readOnly: true,
    request: (a) => ({ method: 'POST', url: '/api/analytics/query', body: a.query }),
  },
];
