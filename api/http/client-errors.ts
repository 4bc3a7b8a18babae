import type { FastifyInstance } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ERRORS, type ErrorCode } from '../../lib/errors.js';
import { STATUS_OF } from './error-handler.js';

// Requests Node refuses before Fastify sees them (a malformed request line, headers too large, a request not received
// within the timeouts) are answered on the raw socket. Fastify's default writes its own body shape; this writes ours,
// `{"success": false, "code", "message"}`, as every other error (docs/api.md, "Errors").

const ANSWERS: Record<string, [code: ErrorCode, message: string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: ['request_timeout', 'Request not received in time'],
  HPE_HEADER_OVERFLOW: ['headers_too_large', 'Request headers are larger than 16 KiB'],
};
const MALFORMED: [ErrorCode, string] = ['bad_request', 'Malformed HTTP request'];

/** Fastify's `clientErrorHandler` option. */
export function clientErrorHandler(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [code, message] = ANSWERS[error.code ?? ''] ?? MALFORMED;
  const status = STATUS_OF[ERRORS[code]];
  const reason = STATUS_CODES[status] ?? 'Error';
  this.log.debug({ code: error.code }, 'client error');
  // As Node's own handler: nothing is written over a response already started on this socket.
  const started = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (socket.writable && !started) {
    const body = JSON.stringify({ success: false, code, message });
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
