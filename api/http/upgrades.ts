import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

// The one owner of the HTTP server's 'upgrade' event. Node hands an upgrade request's socket to the listeners and to
// nobody else: a socket no listener takes is never answered, never timed out and never closed, and it keeps
// `server.close()` waiting for ever. So every upgrade ends here, in exactly one of three ways: a transport's handler
// takes it, or it is answered with an HTTP error and destroyed.

/** Takes an upgrade request for a path the transport registered: it completes the handshake or `refuseUpgrade`s. */
export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer, url: URL) => void;

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found', 503: 'Service Unavailable' };

/** Answers an upgrade request with an HTTP error and closes its socket once the answer is written. */
export function refuseUpgrade(socket: Duplex, status: 400 | 403 | 404 | 503): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(`HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`, () => socket.destroy());
}

export class UpgradeRoutes {
  private readonly routes: { path: string | RegExp; handler: UpgradeHandler }[] = [];
  /** Every socket handed over by an upgrade and not yet closed, so that closing the app closes them all. */
  private readonly live = new Set<Duplex>();
  private closing = false;

  constructor(
    app: FastifyInstance,
    private readonly logger: FastifyBaseLogger,
  ) {
    app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => this.route(request, socket, head));
    // Before the server closes: it waits for every connection, upgraded ones included, so a live call socket would
    // otherwise hold shutdown until the caller hangs up.
    app.addHook('preClose', async () => {
      this.closing = true;
      for (const socket of this.live) socket.destroy();
      this.live.clear();
    });
  }

  /** Upgrades whose path (query string aside) is `path`, or matches it, go to `handler`. */
  add(path: string | RegExp, handler: UpgradeHandler): void {
    this.routes.push({ path, handler });
  }

  private route(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.live.add(socket);
    socket.once('close', () => this.live.delete(socket));
    // A reset peer must not become an uncaught exception: its socket is closed and forgotten.
    socket.on('error', () => socket.destroy());
    if (this.closing) return refuseUpgrade(socket, 503);

    const target = request.url ?? '';
    let url: URL;
    try {
      if (!target.startsWith('/')) throw new Error('not an origin-form target');
      url = new URL(target, 'http://upgrade.invalid');
    } catch {
      return refuseUpgrade(socket, 400);
    }
    const route = this.routes.find((r) => (typeof r.path === 'string' ? r.path === url.pathname : r.path.test(url.pathname)));
    if (!route) return refuseUpgrade(socket, 404);
    try {
      route.handler(request, socket, head, url);
    } catch (err) {
      this.logger.error({ err, path: String(route.path) }, 'upgrade handler failed');
      refuseUpgrade(socket, 400);
    }
  }
}
