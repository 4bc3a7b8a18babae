import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { WebSocketServer, type WebSocket } from 'ws';
import type { PrismaClient } from '../../../prisma/client.js';
import type { CallAudioLink, CallAudioRunner } from '../../../modules/calls/index.js';
import type { UpgradeRoutes } from '../../http/upgrades.js';
import type { StreamTokens } from '../../../lib/stream-token.js';
import { carrierOfCall, type CarrierSettings, MEDIA_STREAM_PATH } from '../../../modules/telephony/index.js';
import { deserializeCarrierMessage, MediaStreamSerializer } from './serializer.js';

// A carrier bridges a phone call without LiveKit: Twilio-compatible Media Streams. Once the voice webhook (routes.ts)
// has connected an inbound call, or the callee of an outbound call dialled through the carrier has answered, its audio
// arrives here, 20 ms of 8 kHz mu-law per message (serializer.ts), and the assistant's audio goes back the same way, as
// it plays. The carrier's `stop` (the other side hung up) ends our call; our end of the call (the assistant hung up,
// the call ran out of time) closes the socket and ends the carrier's call through its REST API, so neither side is
// left open.

export { MEDIA_STREAM_PATH };
const PIPELINE_RATE = 16_000;

export interface MediaStreamSocketOptions {
  prisma: PrismaClient;
  runner: CallAudioRunner | undefined;
  tokens: StreamTokens;
  logger: FastifyBaseLogger;
  upgrades: UpgradeRoutes;
  /** How long a socket may stay open before its `start` message proves its token (HttpTimeouts.socketAuthMs). */
  startTimeoutMs: number;
  /** Opens the accounts of carrier connections, to end their calls from our side. */
  carriers: CarrierSettings;
}

/** Which calls a stream may start: an inbound call is ringing; an outbound one is answered before its callbacks say so. */
function startable(call: { transport: string; status: string; direction: string }): boolean {
  if (call.transport !== 'media_stream') return false;
  return call.status === 'ringing' || (call.direction === 'outbound' && call.status === 'initiated');
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
    // Set when the carrier's side ended the stream: then there is no carrier call left to end.
    let carrierEnded = false;
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
          if (!call || !startable(call) || !runner) return ws.close(1008, 'no such call');
          // The carrier's id of an outbound call whose dial answer has not been stored yet.
          if (call.providerCallSid === null && message.callSid) {
            await prisma.call.updateMany({ where: { id: call.id, providerCallSid: null }, data: { providerCallSid: message.callSid } });
          }
          const serializer = new MediaStreamSerializer(message.streamSid);
          link = runner.open(call.id);
          link.onAssistantAudio((samples, rate) => {
            for (const frame of serializer.audio(samples, rate)) if (ws.readyState === ws.OPEN) ws.send(frame);
          });
          const providerCallSid = call.providerCallSid ?? (message.callSid || null);
          // Our side ended the call: the carrier's call is ended first (its REST API), then the stream closes, so the
          // carrier never moves on to whatever would follow the stream.
          const close = (code: number, reason: string) => async () => {
            if (!carrierEnded && providerCallSid) await endCarrierCall(call, providerCallSid);
            ws.close(code, reason);
          };
          void link.ended.then(close(1000, 'call ended'), close(1011, 'call failed'));
        })().catch((error: unknown) => {
          logger.error({ err: error }, 'media stream not started');
          ws.close(1011, 'not started');
        });
      } else if (message.event === 'media' && link && message.samples.length > 0) {
        link.pushCallerAudio(message.samples, message.sampleRate);
      } else if (message.event === 'stop') {
        carrierEnded = true;
        link?.hangUp();
      }
    });
    // A socket that dropped without `stop` may leave the carrier's call up: it is ended through the REST API too.
    ws.on('close', () => link?.hangUp());
  }

  /** Ends the carrier's side of a call we ended: closing the stream alone would leave a `<Connect>` call to its next verb. */
  async function endCarrierCall(call: { id: number; phoneNumberId: number | null; callSid: string }, providerCallSid: string): Promise<void> {
    const carrier = await carrierOfCall(prisma, options.carriers, call).catch(() => null);
    if (!carrier) return;
    await carrier.adapter
      .hangUp(carrier.account, providerCallSid)
      .catch((error: unknown) =>
        logger.warn({ callSid: call.callSid, err: (error as Error).message }, 'carrier call not ended; it ends when its stream closes'),
      );
  }
}
