import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

// A team's MCP server on 127.0.0.1, made with the official SDK (Streamable HTTP, stateless): an order desk with a
// lookup and a cancellation, answering only requests that carry its bearer token. It records each tool call with the
// authorization it came with.

export interface FakeMcpServer {
  url: string;
  calls: { tool: string; args: Record<string, unknown>; authorization: string | undefined }[];
  close(): Promise<void>;
}

export async function startFakeMcpServer(token: string): Promise<FakeMcpServer> {
  const calls: FakeMcpServer['calls'] = [];
  const serverFor = (authorization: string | undefined) => {
    const server = new McpServer({ name: 'order-desk', version: '1.0.0' });
    server.registerTool(
      'lookup_order',
      { description: 'Finds an order by its id', inputSchema: { order_id: z.string().describe('The order id, such as A-17') } },
      async (args) => {
        calls.push({ tool: 'lookup_order', args, authorization });
        return { content: [{ type: 'text', text: JSON.stringify({ order_id: args.order_id, status: 'shipped', eta: 'Friday' }) }] };
      },
    );
    server.registerTool('cancel_order', { description: 'Cancels an order', inputSchema: { order_id: z.string() } }, async (args) => {
      calls.push({ tool: 'cancel_order', args, authorization });
      return { content: [{ type: 'text', text: 'cancelled' }] };
    });
    return server;
  };
  const httpServer = http.createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized' }));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = chunks.length > 0 ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown) : undefined;
      const server = serverFor(req.headers.authorization);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => void server.close());
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(() => resolve());
      }),
  };
}
