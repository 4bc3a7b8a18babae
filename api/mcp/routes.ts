import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { API_VERSION } from '../openapi.js';
import { commonErrors, ErrorResponse } from '../schemas/common.js';
import { type ApiRequest, PLATFORM_TOOLS } from './tools.js';
import { innerRequestHeaders } from '../http/inner-requests.js';

// The platform as an MCP server (Streamable HTTP, stateless, JSON answers) at /api/mcp, so a coding agent can build
// and test assistants: the tools of tools.ts and resources for the OpenAPI document, assistants, calls and test runs.
// The route authenticates like every /api route (an API key), and each tool is made as a request to the API itself
// with the caller's key, so tenancy, validation, rate limits and answers are the REST API's, never a second copy.
// The official SDK speaks the protocol; a fresh server per request keeps no state between requests, so any API
// process answers any request.

const tags = ['MCP'];

/** A JSON-RPC 2.0 message, as MCP's Streamable HTTP transport takes them one per POST. */
const JsonRpcMessage = z
  .object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string().max(200), z.int()]).optional(),
    method: z.string().min(1).max(200),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'JsonRpcMessage' });

const JsonRpcAnswer = z
  .object({ jsonrpc: z.literal('2.0'), id: z.union([z.string(), z.int(), z.null()]), result: z.unknown().optional(), error: z.unknown().optional() })
  .meta({ id: 'JsonRpcAnswer' });

/** What a tool answers: the API's JSON as text (and as structured content when it is an object), or its error. */
async function callApi(app: FastifyInstance, authorization: string, request: ApiRequest) {
  const response = await app.inject({
    method: request.method,
    url: request.url,
    headers: { authorization, ...innerRequestHeaders(), ...(request.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(request.body === undefined ? {} : { payload: JSON.stringify(request.body) }),
  });
  const text = response.body;
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = undefined;
  }
  const failed = response.statusCode >= 400;
  return {
    content: [{ type: 'text' as const, text: failed ? `HTTP ${response.statusCode}: ${text}` : text }],
    ...(json && typeof json === 'object' && !Array.isArray(json) ? { structuredContent: json as Record<string, unknown> } : {}),
    ...(failed ? { isError: true } : {}),
  };
}

/** The API's answer to a GET, as a resource's contents. */
async function readApi(app: FastifyInstance, authorization: string, uri: URL, url: string) {
  const answer = await callApi(app, authorization, { method: 'GET', url });
  if (answer.isError) throw new Error(answer.content[0]!.text);
  return { contents: [{ uri: uri.href, mimeType: 'application/json', text: answer.content[0]!.text }] };
}

/** The SDK, loaded on the first MCP request: a service that is never asked pays nothing for it at start (~0.1 s). */
let sdk:
  | Promise<[typeof import('@modelcontextprotocol/sdk/server/mcp.js'), typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js')]>
  | undefined;
const loadSdk = () =>
  (sdk ??= Promise.all([import('@modelcontextprotocol/sdk/server/mcp.js'), import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js')]));

async function platformServer(app: FastifyInstance, authorization: string): Promise<McpServer> {
  const [{ McpServer, ResourceTemplate }] = await loadSdk();
  const server = new McpServer(
    { name: 'voice-platform', version: API_VERSION },
    { instructions: 'Build, test and inspect voice assistants. Bodies follow the REST API; read the openapi resource for their schemas.' },
  );
  for (const tool of PLATFORM_TOOLS) {
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: tool.input, annotations: { readOnlyHint: tool.readOnly } },
      (args: Record<string, unknown>) => callApi(app, authorization, tool.request(args)),
    );
  }
  server.registerResource(
    'openapi',
    'voice-platform://openapi.json',
    { title: 'The REST API', description: 'The OpenAPI document: every operation, body and answer', mimeType: 'application/json' },
    (uri) => readApi(app, authorization, uri, '/api/openapi.json'),
  );
  const templates: [string, string, string, (vars: Record<string, string | string[]>) => string][] = [
    [
      'assistant',
      'voice-platform://assistants/{assistant_id}',
      'An assistant and its settings',
      (v) => `/api/assistants/${encodeURIComponent(String(v.assistant_id))}`,
    ],
    ['call', 'voice-platform://calls/{call_sid}', 'A call and its outcome', (v) => `/api/calls/${encodeURIComponent(String(v.call_sid))}`],
    ['test-run', 'voice-platform://test-runs/{test_run_id}', 'A test run and its result', (v) => `/api/test-runs/${encodeURIComponent(String(v.test_run_id))}`],
  ];
  for (const [name, template, description, url] of templates) {
    server.registerResource(name, new ResourceTemplate(template, { list: undefined }), { description, mimeType: 'application/json' }, (uri, vars) =>
      readApi(app, authorization, uri, url(vars)),
    );
  }
  return server;
}

export const mcpRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post('/mcp', {
    config: { answeredByInnerRequests: true },
    schema: {
      tags,
      summary: 'MCP: the platform for coding agents',
      description:
        'Model Context Protocol over Streamable HTTP (stateless; JSON answers): tools to build, test and inspect assistants, and resources for the OpenAPI document, assistants, calls and test runs. Authenticated and limited as every /api operation. See docs/mcp.md.',
      body: JsonRpcMessage,
      response: {
        200: JsonRpcAnswer.describe('The JSON-RPC answer'),
        202: z.void().describe('A notification, accepted (no body)'),
        400: ErrorResponse.describe('A message the protocol refuses'),
        ...commonErrors,
      },
    },
    handler: async (request, reply) => {
      const [, { WebStandardStreamableHTTPServerTransport }] = await loadSdk();
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      const server = await platformServer(app, request.headers.authorization ?? '');
      try {
        await server.connect(transport);
        // JSON answers: the client's Accept (which the protocol wants to name both kinds) is not what chooses them.
        const web = new Request(`http://localhost${request.url}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        });
        const answer = await transport.handleRequest(web, { parsedBody: request.body });
        const text = await answer.text();
        if (answer.status >= 400) {
          // The protocol's own refusal, in the API's error shape with the JSON-RPC error kept beside it.
          const rpc = text ? (JSON.parse(text) as { error?: { message?: string } }) : {};
          return reply.status(400).send({ success: false, code: 'invalid_request', message: rpc.error?.message ?? 'Not an MCP message', jsonrpc: rpc });
        }
        if (!text) return reply.status(202).send();
        return reply.status(200).type('application/json; charset=utf-8').send(JSON.parse(text));
      } finally {
        await server.close();
      }
    },
  });
};
