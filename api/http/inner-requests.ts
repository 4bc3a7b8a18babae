import crypto from 'node:crypto';
import type { FastifyRequest } from 'fastify';

// Requests the API makes to itself to answer one request (the MCP server's tool calls, api/mcp/), told apart from
// requests off the network by a header whose value is a secret of this process: nothing outside the process can set
// it, so a client cannot use it to pass the rate limits. The request that made them was counted already.

const HEADER = 'x-inner-request';
const MARK = crypto.randomBytes(24).toString('base64url');
const MARK_BYTES = Buffer.from(MARK);

/** Headers that mark a request the API injects into itself. */
export const innerRequestHeaders = (): Record<string, string> => ({ [HEADER]: MARK });

export function isInnerRequest(request: FastifyRequest): boolean {
  const value = request.headers[HEADER];
  if (typeof value !== 'string' || value.length !== MARK.length) return false;
  return crypto.timingSafeEqual(Buffer.from(value), MARK_BYTES);
}
