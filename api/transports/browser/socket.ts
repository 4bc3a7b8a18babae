import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { WebSocketServer, type WebSocket } from 'ws';
import type { PrismaClient } from '../../../prisma/client.js';
import type { CallAudioLink, CallAudioRunner } from '../../../modules/calls/index.js';
import { refuseUpgrade, type UpgradeRoutes } from '../../http/upgrades.js';
import type { StreamTokens } from '../../../lib/stream-token.js';
import { deserializeBrowserFrame, serializeAudio, serializeEnded, serializeTranscript } from './serializer.js';

// The built-in browser call's audio socket: the page (call-page.ts) sends the microphone over it, bound to the call by
// the token the route (routes.ts) handed out, and plays the assistant's audio as it arrives. Frames: serializer.ts.

const AUDIO_PATH = /^\/call\/([A-Za-z0-9]+)\/audio$/;

export interface BuiltInBrowserCallSocketOptions {
  prisma: PrismaClient;
  runner: CallAudioRunner | undefined;
  tokens: StreamTokens;
  logger: FastifyBaseLogger;
  upgrades: UpgradeRoutes;
}

export function registerBuiltInBrowserCallSocket(app: FastifyInstance, options: BuiltInBrowserCallSocketOptions): void {
  const { prisma, runner, tokens, logger } = options;

  const sockets = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024 });
  // The socket is authenticated before the handshake: its token names the call, so no unauthenticated socket is kept.
  options.upgrades.add(AUDIO_PATH, (req, socket, head, url) => {
    const callSid = tokens.verify(url.searchParams.get('token') ?? '');
    if (callSid === null || callSid !== AUDIO_PATH.exec(url.pathname)?.[1]) return refuseUpgrade(socket, 403);
    sockets.handleUpgrade(req, socket, head, (ws) => void serve(ws, callSid));
  });
  app.addHook('onClose', async () => {
    for (const ws of sockets.clients) ws.terminate();
    sockets.close();
  });

  async function serve(ws: WebSocket, callSid: string): Promise<void> {
    const call = await prisma.call.findUnique({ where: { callSid } });
    if (!call || call.transport !== 'browser' || call.status !== 'queued' || !runner) return ws.close(1008, 'no such call');
    const link: CallAudioLink = runner.open(call.id);
    link.onAssistantAudio((samples, rate) => {
      if (ws.readyState === ws.OPEN) ws.send(serializeAudio(samples, rate));
    });
    link.onTranscript((entry) => {
      if (ws.readyState === ws.OPEN) ws.send(serializeTranscript(entry));
    });
    link.ended.then(
      (end) => {
        if (ws.readyState === ws.OPEN) ws.send(serializeEnded(end));
        ws.close(1000, 'call ended');
      },
      (error: unknown) => {
        logger.error({ callSid, err: error }, 'browser call failed');
        ws.close(1011, 'call failed');
      },
    );
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      const message = deserializeBrowserFrame(data, isBinary);
      if (message.type === 'audio') link.pushCallerAudio(message.samples, message.sampleRate);
      else if (message.type === 'hangup') link.hangUp();
    });
    ws.on('close', () => link.hangUp());
  }
}
