import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

/** One client connection as the fake saw it: the upgrade request, and every frame the client sent. */
export interface RecordedConnection {
  url: URL;
  headers: IncomingMessage['headers'];
  /** Binary frames (audio), in order. */
  binary: Buffer[];
  /** Text frames, in order. */
  text: string[];
}

export interface FakeWsServer {
  /** `ws://127.0.0.1:<port>`: what a vendor's base URL override points at. */
  url: string;
  connections: RecordedConnection[];
  close(): Promise<void>;
}

/**
 * A real `ws` server on 127.0.0.1 that records each connection and hands the socket to the vendor's script. Only the
 * vendor's path upgrades (a string, or a predicate on the path); any other is refused with 400, as the vendor would.
 */
export async function startWsServer(
  path: string | ((pathname: string) => boolean),
  onConnection: (socket: WebSocket, connection: RecordedConnection, index: number) => void,
): Promise<FakeWsServer> {
  const connections: RecordedConnection[] = [];
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, ...(typeof path === 'string' ? { path } : {}) });
  // A vendor whose front end normalises the path (Google's takes `//ws/...` as `/ws/...`) is matched by a predicate.
  if (typeof path === 'function') server.shouldHandle = (req) => path((req.url ?? '/').split('?')[0]!);
  server.on('connection', (socket, req) => {
    // `//ws/...` would read as a host name: the path is taken as it came.
    const connection: RecordedConnection = { url: new URL(`ws://127.0.0.1${req.url ?? '/'}`), headers: req.headers, binary: [], text: [] };
    connections.push(connection);
    // Recording listeners come first so that the script's own listeners see frames already recorded.
    socket.on('message', (data, isBinary) => {
      const bytes = Buffer.isBuffer(data) ? data : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]);
      if (isBinary) connection.binary.push(bytes);
      else connection.text.push(bytes.toString('utf8'));
    });
    onConnection(socket, connection, connections.length - 1);
  });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}`,
    connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}
