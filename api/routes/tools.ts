import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PrismaClient } from '../../prisma/client.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { commonErrors, envelope, ErrorResponse, pagedEnvelope, pageQuery } from '../schemas/common.js';
import {
  createTool,
  deleteTool,
  getTool,
  listTools,
  testTool,
  listMcpToolServerTools,
  McpServerTools,
  Tool,
  ToolCreate,
  type ToolDeps,
  ToolParams,
  ToolTestRequest,
  ToolTestResult,
  ToolUpdate,
  updateTool,
} from '../../modules/tools/index.js';

const tags = ['Tools'];
const notFound = { 404: ErrorResponse.describe('No such tool in this organisation') };
const nameTaken = { 409: ErrorResponse.describe('Another tool of the organisation has this name') };
const PATH = '/tools';

export interface ToolRouteOptions {
  prisma: PrismaClient;
  secrets: SecretBox;
  /** Accept tool URLs whose host is a loopback, private or other non-public IP address, as for webhooks. */
  allowPrivateTargets?: boolean;
}

export const toolRoutes: FastifyPluginAsyncZod<ToolRouteOptions> = async (app, { prisma, secrets, allowPrivateTargets }) => {
  const deps: ToolDeps = { db: prisma, secrets, policy: { allowPrivateTargets: allowPrivateTargets ?? false } };

  app.post(PATH, {
    schema: {
      tags,
      summary: 'Create a tool',
      description:
        'A function the assistant can call: an HTTP request (`type: http`) or a built-in (`end_call`, `transfer_call`, ' +
        '`send_dtmf`). Credential headers go in `http.secret_headers`: stored encrypted, never shown again. See docs/tools.md.',
      body: ToolCreate,
      response: { 201: envelope(Tool), ...nameTaken, ...commonErrors },
    },
    handler: async (request, reply) => {
      const data = await createTool(deps, request.identity.organizationId, request.body);
      return reply.status(201).send({ success: true as const, message: 'Tool created', data });
    },
  });

  app.get(PATH, {
    schema: {
      tags,
      summary: 'List tools',
      description: 'Newest first. `per_page` defaults to 20, at most 100.',
      querystring: pageQuery,
      response: { 200: pagedEnvelope(Tool), ...commonErrors },
    },
    handler: async (request) => {
      const { page, per_page } = request.query;
      return { success: true as const, message: 'Tools retrieved', ...(await listTools(deps, request.identity.organizationId, page, per_page)) };
    },
  });

  app.get(`${PATH}/:tool_id`, {
    schema: { tags, summary: 'Get a tool', params: ToolParams, response: { 200: envelope(Tool), ...notFound, ...commonErrors } },
    handler: async (request) => ({
      success: true as const,
      message: 'Tool retrieved',
      data: await getTool(deps, request.identity.organizationId, request.params.tool_id),
    }),
  });

  app.patch(`${PATH}/:tool_id`, {
    schema: {
      tags,
      summary: 'Update a tool',
      description:
        'Omitted fields keep their value; `http`, `transfer` and `messages` are replaced whole. A masked secret header sent back keeps its stored value.',
      params: ToolParams,
      body: ToolUpdate,
      response: { 200: envelope(Tool), ...notFound, ...nameTaken, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Tool updated',
      data: await updateTool(deps, request.identity.organizationId, request.params.tool_id, request.body),
    }),
  });

  app.delete(`${PATH}/:tool_id`, {
    schema: {
      tags,
      summary: 'Delete a tool',
      description: 'Assistants it was assigned to no longer offer it.',
      params: ToolParams,
      response: { 200: envelope(z.object({ id: z.int() })), ...notFound, ...commonErrors },
    },
    handler: async (request) => {
      await deleteTool(deps, request.identity.organizationId, request.params.tool_id);
      return { success: true as const, message: 'Tool deleted', data: { id: request.params.tool_id } };
    },
  });

  app.post(`${PATH}/:tool_id/test`, {
    schema: {
      tags,
      summary: 'Try an HTTP tool',
      description:
        'Sends the request once, as a call would, with the arguments, variables and contact given, and answers what ' +
        'was sent (credentials redacted), what came back and what the model would be told. A failed request is a 200 ' +
        'with `is_error`; a built-in tool answers 409 (it acts on a call). The body is optional.',
      params: ToolParams,
      body: ToolTestRequest.optional(),
      response: { 200: envelope(ToolTestResult), 409: ErrorResponse.describe('Not an HTTP tool'), ...notFound, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'Tool tried',
      data: await testTool(deps, request.identity.organizationId, request.params.tool_id, ToolTestRequest.parse(request.body ?? {})),
    }),
  });

  app.get(`${PATH}/:tool_id/mcp-tools`, {
    schema: {
      tags,
      summary: "List an MCP tool's server tools",
      description:
        "Connects to the mcp tool's server (through the outbound-target guard, with its credential headers and timeout) and " +
        'answers the tools it lists, each marked offered or not (`mcp.tools`). A server that cannot be listed is a 200 with ' +
        '`error` and no tools; a tool of another type answers 409.',
      params: ToolParams,
      response: { 200: envelope(McpServerTools), 409: ErrorResponse.describe('Not an MCP tool'), ...notFound, ...commonErrors },
    },
    handler: async (request) => ({
      success: true as const,
      message: 'MCP server tools listed',
      data: await listMcpToolServerTools(deps, request.identity.organizationId, request.params.tool_id),
    }),
  });
};
