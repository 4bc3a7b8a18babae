import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import type { PrismaClient } from '../../../prisma/client.js';
import { type CallAudioRunner, openInboundCall } from '../../../modules/calls/index.js';
import { normalizePhone } from '../../../lib/phone.js';
import {
  applyStoredReport,
  carrierOfCall,
  carrierOfConnection,
  type CarrierSettings,
  carrierStatusPath,
  connectStreamTwiml,
  machineDetectionPath,
  MEDIA_STREAM_PATH,
  NOT_TAKEN_TWIML,
  REJECT_TWIML,
  storeCarrierReport,
  UNAVAILABLE_TWIML,
  BUSY_TWIML,
  validTwilioSignature,
  VOICE_WEBHOOK_PATH,
} from '../../../modules/telephony/index.js';
import { warmTransferCallbacks } from './warm-transfer-callbacks.js';
import { publicBaseUrl } from '../../http/public-url.js';
import type { StreamTokens } from '../../../lib/stream-token.js';

// What carriers POST to us. The voice webhook, when a managed number rings: its TwiML answer connects the call's audio
// to our Media Streams socket, with a token that binds the socket to the call opened here. The status and
// answering-machine callbacks of outbound calls, one URL per call: they move the call as the carrier reports it.
// None carries an API key: each is signed with the carrier account's auth token, and checked against it.

export interface MediaStreamRouteOptions {
  prisma: PrismaClient;
  runner: CallAudioRunner | undefined;
  tokens: StreamTokens;
  /** The deployment's carrier auth token (TWILIO_AUTH_TOKEN): signs voice webhooks of numbers on SIP-trunk connections. */
  authToken: string | undefined;
  /** Opens the auth tokens of carrier connections. */
  carriers: CarrierSettings;
  /** The service's public base URL as the carrier reaches it (signatures cover the full URL); default: from the request. */
  publicUrl: string | undefined;
  logger: FastifyBaseLogger;
}

/** A form's text fields; anything else a client sends (a JSON body, nested values) is not a carrier's and is dropped. */
export function formFields(body: unknown): Record<string, string> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return {};
  return Object.fromEntries(Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

export const mediaStreamRoutes: FastifyPluginAsync<MediaStreamRouteOptions> = async (scope, options) => {
  const { prisma, runner, tokens, logger } = options;
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  /** The token that signs webhooks for the number called: its carrier connection's own, else the deployment's. */
  async function voiceWebhookToken(to: string | undefined): Promise<string | undefined> {
    const number = to ? normalizePhone(to, 'US')?.e164 : undefined;
    const managed = number ? await prisma.phoneNumber.findUnique({ where: { number }, include: { connection: true } }) : null;
    return (managed && carrierOfConnection(options.carriers, managed.connection)?.account.authToken) ?? options.authToken;
  }

  scope.post(VOICE_WEBHOOK_PATH, { schema: { hide: true }, config: { auth: 'signature' } }, async (request, reply) => {
    reply.type('text/xml; charset=utf-8');
    const params = formFields(request.body);
    const authToken = await voiceWebhookToken(params.To);
    if (!authToken || !runner) return reply.status(503).send(UNAVAILABLE_TWIML);
    const base = publicBaseUrl(request, options.publicUrl);
    if (!validTwilioSignature(authToken, `${base}${request.url}`, params, request.headers['x-twilio-signature'] as string | undefined)) {
      return reply.status(403).send(REJECT_TWIML);
    }
    // A saturated process takes no new call: the caller hears busy (and the carrier may try the number's fallback)
    // rather than every call on it, this one included, breaking up.
    if (runner.atCapacity?.()) {
      logger.warn('inbound call refused: at capacity');
      return reply.send(BUSY_TWIML);
    }
    const opened = await openInboundCall(prisma, {
      toNumber: params.To ?? '',
      fromNumber: params.From ?? null,
      transport: 'media_stream',
      providerCallSid: params.CallSid ?? null,
    });
    if ('rejected' in opened) {
      logger.warn({ reason: opened.rejected }, 'inbound call refused');
      return reply.send(NOT_TAKEN_TWIML);
    }
    return reply.send(connectStreamTwiml(`${base.replace(/^http/, 'ws')}${MEDIA_STREAM_PATH}`, { token: tokens.sign(opened.call.callSid) }));
  });

  // Both callbacks read the same way: the carrier's word on the call, checked against the call's own connection.
  const callback = async (
    request: { params: unknown; body: unknown; url: string; headers: Record<string, string | string[] | undefined>; protocol: string },
    kind: string,
    callSid: string,
  ) => {
    const call = await prisma.call.findUnique({ where: { callSid } });
    const carrier = call && (await carrierOfCall(prisma, options.carriers, call));
    const base = publicBaseUrl(request, options.publicUrl);
    const params = formFields(request.body);
    if (
      !call ||
      !carrier ||
      carrier.adapter.kind !== kind ||
      !carrier.adapter.verifySignature(carrier.account, `${base}${request.url}`, params, request.headers)
    )
      return false;
    const report = carrier.adapter.readCallback(params);
    if (report) {
      // Stored, then acknowledged: the carrier does not send a callback twice. Applied after the answer, here, and
      // from the queue of any process should this fail (modules/telephony/carrier-reports.ts).
      const id = await storeCarrierReport(prisma, call.id, report);
      setImmediate(() => {
        applyStoredReport(prisma, id, call.id, report).catch((err: unknown) =>
          logger.warn({ callId: call.id, state: report.state, err }, 'carrier report not applied yet; the queue retries it'),
        );
      });
    }
    return true;
  };
  const paths = [carrierStatusPath(':carrier', ':call_sid'), machineDetectionPath(':carrier', ':call_sid')];
  for (const path of paths) {
    scope.post<{ Params: { carrier: string; call_sid: string } }>(path, { schema: { hide: true }, config: { auth: 'signature' } }, async (request, reply) => {
      // An unknown call and a bad signature read alike: the caller is not the carrier of that call.
      if (!(await callback(request, request.params.carrier, request.params.call_sid))) return reply.status(403).send();
      return reply.status(204).send();
    });
  }

  await warmTransferCallbacks(scope, { ...options, formFields });
};
