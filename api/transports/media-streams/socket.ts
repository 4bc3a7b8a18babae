import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { decodeMulaw, encodeMulaw } from '../../../media/mulaw.js';
import { resampleLinear } from '../../../media/pcm.js';
import type { PrismaClient } from '../../../prisma/client.js';
import type { CallAudioLink, CallAudioRunner } from '../../../modules/calls/audio-runner.js';
import { openInboundCall } from '../../../modules/calls/inbound.js';
import type { UpgradeRoutes } from '../../http/upgrades.js';
import type { StreamTokens } from '../stream-token.js';
import { validTwilioSignature } from './twilio-signature.js';

// A carrier bridges a phone call without LiveKit: Twilio-compatible Media Streams. The carrier POSTs its voice webhook
// when a managed number rings; the answer (TwiML) connects the call's audio to our WebSocket, where it arrives as JSON
// messages carrying 20 ms of 8 kHz mu-law each. The assistant's audio goes back the same way, as it plays.

export const VOICE_WEBHOOK_PATH = '/telephony/twilio/voice';
export const MEDIA_STREAM_PATH = '/telephony/media-stream';
const CARRIER_RATE = 8000;
/** 20 ms at 8 kHz, one byte per sample: the frame carriers send and expect. */
const FRAME_BYTES = 160;
const PIPELINE_RATE = 16_000;

export interface MediaStreamOptions {
  prisma: PrismaClient;
  runner: CallAudioRunner | undefined;
  tokens: StreamTokens;
  /** The carrier account's auth token; the webhook is refused without it (anyone could otherwise start calls). */
  authToken: string | undefined;
  /** The service's public base URL as the carrier reaches it (signatures cover the full URL); default: from the request. */
  publicUrl: string | undefined;
  logger: FastifyBaseLogger;
  upgrades: UpgradeRoutes;
  /** How long a socket may stay open before its `start` message proves its token (HttpTimeouts.socketAuthMs). */
  startTimeoutMs: number;
}

const xml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
const twiml = (body: string) => `<?xml version="1.0" encoding="UTF-8"?><Response>${body}</Response>`;
const SORRY = twiml('<Say>Sorry, this number cannot take your call.</Say><Hangup/>');

function baseUrl(request: { headers: IncomingMessage['headers']; protocol: string }, publicUrl: string | undefined): string {
  if (publicUrl) return publicUrl.replace(/\/$/, '');
  const proto = String(request.headers['x-forwarded-proto'] ?? request.protocol).split(',')[0]!.trim();
  return `${proto}://${request.headers['x-forwarded-host'] ?? request.headers.host}`;
}

export function registerMediaStreams(app: FastifyInstance, options: MediaStreamOptions): void {
  const { prisma, runner, tokens, logger } = options;

  app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    // No API key: the carrier signs the webhook with the account's auth token, and the handler checks that signature.
    scope.post(VOICE_WEBHOOK_PATH, { schema: { hide: true }, config: { auth: 'signature' } }, async (request, reply) => {
      reply.type('text/xml; charset=utf-8');
      if (!options.authToken || !runner) {
        return reply.status(503).send(twiml('<Say>Sorry, calls cannot be taken right now.</Say><Hangup/>'));
      }
      const params = (request.body ?? {}) as Record<string, string>;
      const base = baseUrl(request, options.publicUrl);
      if (!validTwilioSignature(options.authToken, `${base}${request.url}`, params, request.headers['x-twilio-signature'] as string | undefined)) {
        return reply.status(403).send(twiml('<Reject/>'));
      }
      const opened = await openInboundCall(prisma, { toNumber: params.To ?? '', fromNumber: params.From ?? null, transport: 'media_stream', providerCallSid: params.CallSid ?? null });
      if ('rejected' in opened) {
        logger.warn({ to: params.To, reason: opened.rejected }, 'inbound call refused');
        return reply.send(SORRY);
      }
      const streamUrl = `${base.replace(/^http/, 'ws')}${MEDIA_STREAM_PATH}`;
      const token = tokens.sign(opened.call.callSid);
      return reply.send(twiml(`<Connect><Stream url="${xml(streamUrl)}"><Parameter name="token" value="${xml(token)}"/></Stream></Connect>`));
    });
  });

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
    let streamSid = '';
    let pending = new Uint8Array(0);
    const sendAssistant = (samples: Int16Array, rate: number) => {
      const encoded = encodeMulaw(resampleLinear(samples, rate, CARRIER_RATE));
      const joined = new Uint8Array(pending.length + encoded.length);
      joined.set(pending);
      joined.set(encoded, pending.length);
      let offset = 0;
      for (; offset + FRAME_BYTES <= joined.length; offset += FRAME_BYTES) {
        const payload = Buffer.from(joined.subarray(offset, offset + FRAME_BYTES)).toString('base64');
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ event: 'media', streamSid, media: { payload } }));
      }
      pending = joined.slice(offset);
    };

    ws.on('message', (data: Buffer) => {
      let msg: { event?: string; start?: { streamSid?: string; customParameters?: Record<string, string> }; streamSid?: string; media?: { payload?: string } };
      try {
        msg = JSON.parse(data.toString()) as typeof msg;
      } catch {
        return ws.close(1003, 'messages are JSON');
      }
      if (msg.event === 'start' && !link) {
        void (async () => {
          const callSid = tokens.verify(msg.start?.customParameters?.token ?? '');
          const call = callSid ? await prisma.call.findUnique({ where: { callSid } }) : null;
          if (!call || call.transport !== 'media_stream' || call.status !== 'ringing' || !runner) return ws.close(1008, 'no such call');
          streamSid = msg.start?.streamSid ?? '';
          link = runner.open(call.id);
          link.onAssistantAudio(sendAssistant);
          void link.ended.then(() => ws.close(1000, 'call ended'), () => ws.close(1011, 'call failed'));
        })().catch((error: unknown) => {
          logger.error({ err: (error as Error).message }, 'media stream not started');
          ws.close(1011, 'not started');
        });
      } else if (msg.event === 'media' && link && msg.media?.payload) {
        const pcm = decodeMulaw(Buffer.from(msg.media.payload, 'base64'));
        link.pushCallerAudio(resampleLinear(pcm, CARRIER_RATE, PIPELINE_RATE), PIPELINE_RATE);
      } else if (msg.event === 'stop') {
        link?.hangUp();
      }
    });
    ws.on('close', () => link?.hangUp());
  }
}
