import type { FastifyInstance } from 'fastify';
import { carrierOfCall, carrierOfKind, findWarmTransfer, moveWarmTransfer, REJECT_TWIML, warmTransferPath } from '../../../modules/telephony/index.js';
import { publicBaseUrl } from '../../http/public-url.js';
import type { MediaStreamRouteOptions } from './routes.js';

// The carrier's callbacks about a warm transfer's call to the person it consults (agent/call/line-tools.ts, agent/io/carrier-consult.ts): its
// progress, the key the person pressed, and the answering-machine verdict. Each moves the consultation's row, which
// NOTIFYs the process running the caller's call. Like every carrier callback they carry no key: each is signed with
// the carrier account's auth token (the caller's connection's own, else the deployment's) and checked against it.

type Options = MediaStreamRouteOptions & { formFields: (body: unknown) => Record<string, string> };

/** The carrier's progress of the consult call, in the consultation's words; undefined while it is still under way. */
const FINAL_STATES: Record<string, 'declined' | 'no_answer' | 'busy' | 'failed' | 'canceled'> = {
  // Answered and over without a key that accepted: the person hung up, or let the question go.
  completed: 'declined',
  no_answer: 'no_answer',
  busy: 'busy',
  failed: 'failed',
  canceled: 'canceled',
};

const isMachine = (answeredBy: string) => answeredBy.startsWith('machine') || answeredBy === 'fax';

export async function warmTransferCallbacks(scope: FastifyInstance, options: Options): Promise<void> {
  const { prisma, logger } = options;

  /** The consultation a callback names, when the carrier of its call signed it; undefined otherwise. */
  async function signedConsultation(request: {
    params: { carrier: string; token: string };
    body: unknown;
    url: string;
    headers: Record<string, string | string[] | undefined>;
    protocol: string;
  }) {
    const adapter = carrierOfKind(request.params.carrier);
    if (!adapter || !/^[0-9a-f]{32}$/.test(request.params.token)) return undefined;
    const consultation = await findWarmTransfer(prisma, request.params.token);
    const call = consultation && (await prisma.call.findUnique({ where: { id: consultation.callId } }));
    if (!consultation || !call) return undefined;
    const own = await carrierOfCall(prisma, options.carriers, call);
    const account = own?.account ?? (options.authToken ? { accountSid: '', authToken: options.authToken, apiBaseUrl: '' } : undefined);
    const params = options.formFields(request.body);
    const base = publicBaseUrl(request, options.publicUrl);
    if (!account || !adapter.verifySignature(account, `${base}${request.url}`, params, request.headers)) return undefined;
    // A callback about another call than the one created for this consultation changes nothing.
    if (consultation.consultCallSid !== null && params.CallSid !== consultation.consultCallSid) return undefined;
    return { consultation, adapter, params };
  }

  const route = { schema: { hide: true }, config: { auth: 'signature' } } as const;
  type Params = { Params: { carrier: string; token: string } };

  scope.post<Params>(warmTransferPath(':carrier', ':token', 'status'), route, async (request, reply) => {
    const found = await signedConsultation(request);
    if (!found) return reply.status(403).send();
    const report = found.adapter.readCallback(found.params);
    if (report?.state === 'in_progress') await moveWarmTransfer(prisma, found.consultation.token, 'answered');
    const outcome = report && FINAL_STATES[report.state];
    if (outcome && (await moveWarmTransfer(prisma, found.consultation.token, outcome)))
      logger.info({ callId: found.consultation.callId, outcome }, 'warm transfer: consultation over');
    return reply.status(204).send();
  });

  scope.post<Params>(warmTransferPath(':carrier', ':token', 'machine-detection'), route, async (request, reply) => {
    const found = await signedConsultation(request);
    if (!found) return reply.status(403).send();
    const answeredBy = found.adapter.readCallback(found.params)?.answeredBy;
    // A machine is no one to hand a caller to: the call process hangs it up and goes back to the caller.
    if (answeredBy && isMachine(answeredBy) && (await moveWarmTransfer(prisma, found.consultation.token, 'voicemail', answeredBy)))
      logger.info({ callId: found.consultation.callId, answeredBy }, 'warm transfer: a machine answered');
    return reply.status(204).send();
  });

  scope.post<Params>(warmTransferPath(':carrier', ':token', 'answer'), route, async (request, reply) => {
    reply.type('text/xml; charset=utf-8');
    const found = await signedConsultation(request);
    if (!found) return reply.status(403).send(REJECT_TWIML);
    const { consultation, adapter, params } = found;
    const answer = adapter.readConsultAnswer(params, consultation.token);
    const moved = await moveWarmTransfer(prisma, consultation.token, answer.accepted ? 'accepted' : 'declined', 'human');
    logger.info({ callId: consultation.callId, accepted: answer.accepted, moved }, 'warm transfer: the person answered');
    // A key pressed after the consultation was given up on (the caller hung up, it timed out) joins nothing.
    if (!moved) return reply.send(adapter.readConsultAnswer({}, consultation.token).reply);
    return reply.send(answer.reply);
  });
}
