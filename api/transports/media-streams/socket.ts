import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { WebSocketServer, type WebSocket } from 'ws';
import type { PrismaClient } from '../../../prisma/client.js';
import type { CallAudioLink, CallAudioRunner } from '../../../modules/calls/audio-runner.js';
import type { UpgradeRoutes } from '../../http/upgrades.js';
import type { StreamTokens } from '../stream-token.js';
import { deserializeCarrierMessage, MediaStreamSerializer } from './serializer.js';

// A carrier bridges a phone call without LiveKit: Twilio-compatible Media Streams. Once the voice webhook (routes.ts)
// has connected the call, its audio arrives here, 20 ms of 8 kHz mu-law per message (serializer.ts), and the
// assistant's audio goes back the same way, as it plays.

export const MEDIA_STREAM_PATH = '/telephony/media-stream';
const PIPELINE_RATE = 16_000;

export interface MediaStreamSocketOptions {
  prisma: PrismaClient;
  runner: CallAudioRunner | undefined;
  tokens: StreamTokens;
  logger: FastifyBaseLogger;
  upgrades: UpgradeRoutes;
  /** How long a socket may stay open before its `start` message proves its token (HttpTimeouts.socketAuthMs). */
  startTimeoutMs: number;
}

export function registerMediaStreamSocket(app: FastifyInstance, options: MediaStreamSocketOptions): void {
  const { prisma, runner, tokens, logger } = options;

  const sockets = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  options.upgrades.add(MEDIA_STREAM_PATH, (req, socket, head) => sockets.handleUpgrade(req, socket, head, (ws) => serveStream(ws)));
  app.addHook('onClose', async () => {
    for (const ws of sockets.clients) ws.terminate();
    sockets.close();
  });

  function serveStream(ws: WebSocket): void {
    let link: CallAudioLink | undefined;
    // The socket is anonymous until its `start` message proves its token; a carrier sends `start` right after the
    // handshake, so a socket still anonymous after `startTimeoutMs` is not a carrier and is not kept.
    const anonymous = setTimeout(() => {
      if (!link) ws.close(1008, 'no start message');
    }, options.startTimeoutMs);
    ws.once('close', () => clearTimeout(anonymous));

    ws.on('message', (data: Buffer) => {
      const message = deserializeCarrierMessage(data.toString(), PIPELINE_RATE);
      if (message === null) return ws.close(1003, 'messages are JSON');
      if (message.event === 'start' && !link) {
        void (async () => {
          const callSid = tokens.verify(message.customParameters.token ?? '');
          const call = callSid ? await prisma.call.findUnique({ where: { callSid } }) : null;
          if (!call || call.transport !== 'media_stream' || call.status !== 'ringing' || !runner) return ws.close(1008, 'no such call');
          const serializer = new MediaStreamSerializer(message.streamSid);
          link = runner.open(call.id);
          link.onAssistantAudio((samples, rate) => {
            for (const frame of serializer.audio(samples, rate)) if (ws.readyState === ws.OPEN) ws.send(frame);
          });
          void link.ended.then(() => ws.close(1000, 'call ended'), () => ws.close(1011, 'call failed'));
        })().catch((error: unknown) => {
          logger.error({ err: error }, 'media stream not started');
          ws.close(1011, 'not started');
        });
      } else if (message.event === 'media' && link && message.samples.length > 0) {
        link.pushCallerAudio(message.samples, message.sampleRate);
      } else if (message.event === 'stop') {
        link?.hangUp();
      }
    });
    ws.on('close', () => link?.hangUp());
  }
}
