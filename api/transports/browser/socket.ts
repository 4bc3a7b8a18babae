import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { WebSocketServer, type WebSocket } from 'ws';
import { z } from 'zod';
import { resampleLinear } from '../../../media/pcm.js';
import type { PrismaClient } from '../../../prisma/client.js';
import type { CallAudioLink, CallAudioRunner } from '../../../modules/calls/audio-runner.js';
import { AppError } from '../../../lib/errors.js';
import { refuseUpgrade, type UpgradeRoutes } from '../../http/upgrades.js';
import { commonErrors, envelope, ErrorResponse } from '../../schemas/common.js';
import { WebCallCreate } from '../../../modules/telephony/schemas.js';
import { createBrowserCall } from './create-call.js';
import type { StreamTokens } from '../stream-token.js';
import { CALL_PAGE } from './call-page.js';

// Browser calls on the built-in transport: an API route creates the call and a page link; the page (served here) sends
// the microphone over a WebSocket bound to the call by its token, and plays the assistant's audio as it arrives.

const RATE = 16_000;
const AUDIO_PATH = /^\/call\/([A-Za-z0-9]+)\/audio$/;

export const BrowserCall = z
  .object({
    call_sid: z.string(),
    page_url: z.string().describe('Open in a browser to talk; carries the token'),
    websocket_url: z.string().describe('For a custom front end: 16 kHz mono 16-bit PCM both ways, JSON text frames for events'),
    token: z.string(),
    expires_at: z.string().describe('The page must connect before this; the call itself may last longer'),
  })
  .meta({ id: 'BrowserCall' });

export interface BrowserCallOptions {
  prisma: PrismaClient;
  runner: CallAudioRunner | undefined;
  tokens: StreamTokens;
  publicUrl: string | undefined;
  logger: FastifyBaseLogger;
  upgrades: UpgradeRoutes;
}

export function registerBrowserCalls(app: FastifyInstance, options: BrowserCallOptions): void {
  const { prisma, runner, tokens, logger } = options;

  app.post('/api/web-calls/browser', {
    config: { auth: 'api_key' },
    schema: {
      tags: ['Calls'],
      summary: 'Start a browser call on the built-in transport',
      description: 'Without LiveKit: creates the call and returns a page link that talks to the assistant from a browser.',
      body: WebCallCreate,
      response: { 201: envelope(BrowserCall), 503: ErrorResponse.describe('No agent worker runs calls in this process'), ...commonErrors },
    },
    handler: async (request, reply) => {
      const unavailable = runner ? undefined : new AppError('transport_unavailable', 'Browser calls on the built-in transport need the agent worker in this process (npm start)');
      const proto = String(request.headers['x-forwarded-proto'] ?? request.protocol).split(',')[0]!.trim();
      const base = options.publicUrl?.replace(/\/$/, '') ?? `${proto}://${request.headers.host}`;
      const data = await createBrowserCall(prisma, tokens, base, request.identity.organizationId, request.body as z.infer<typeof WebCallCreate>, unavailable);
      return reply.status(201).send({ success: true as const, message: 'Browser call created', data });
    },
  });

  // The page itself is public; what it opens, the audio socket, needs the call's token.
  app.get('/call/:call_sid', { schema: { hide: true }, config: { auth: 'public' } }, async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', "default-src 'self'; script-src 'unsafe-inline' blob:; style-src 'unsafe-inline'; connect-src 'self'")
      .header('cache-control', 'no-store')
      .send(CALL_PAGE),
  );

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
      if (ws.readyState === ws.OPEN) ws.send(Buffer.from(resampleLinear(samples, rate, RATE).buffer));
    });
    link.onTranscript((entry) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'transcript', ...entry }));
    });
    link.ended.then(
      (end) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'ended', status: end.status, end_reason: end.endReason }));
        ws.close(1000, 'call ended');
      },
      (error: unknown) => {
        logger.error({ callSid, err: (error as Error).message }, 'browser call failed');
        ws.close(1011, 'call failed');
      },
    );
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) {
        const even = data.length - (data.length % 2);
        const samples = new Int16Array(even / 2);
        for (let i = 0; i < samples.length; i++) samples[i] = data.readInt16LE(i * 2);
        link.pushCallerAudio(samples, RATE);
        return;
      }
      try {
        if ((JSON.parse(data.toString()) as { type?: string }).type === 'hangup') link.hangUp();
      } catch {
        // Not JSON: ignored, as an unknown control message is.
      }
    });
    ws.on('close', () => link.hangUp());
  }
}
