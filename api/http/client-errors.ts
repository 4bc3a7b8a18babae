import type { FastifyInstance } from 'fastify';
import type { Socket } from 'node:net';

// Requests Node refuses before Fastify sees them (a malformed request line, headers too large, a request not received
// within the timeouts) are answered on the raw socket. Fastify's default writes its own body shape; this writes ours,
// `{"success": false, "code", "message"}`, as every other error (docs/api.md, "Errors").

const ANSWERS: Record<string, [status: number, reason: string, code: string, message: string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'request_timeout', 'Request not received in time'],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'headers_too_large', 'Request headers are larger than 16 KiB'],
};
const MALFORMED: [number, string, string, string] = [400, 'Bad Request', 'bad_request', 'Malformed HTTP request'];

/** Fastify's `clientErrorHandler` option. */
export function clientErrorHandler(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, code, message] = ANSWERS[error.code ?? ''] ?? MALFORMED;
  this.log.debug({ code: error.code }, 'client error');
  // As Node's own handler: nothing is written over a response already started on this socket.
  const started = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (socket.writable && !started) {
    const body = JSON.stringify({ success: false, code, message });
    socket.write(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}
