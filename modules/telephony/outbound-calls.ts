import crypto from 'node:crypto';
import type { PrismaClient } from '../../prisma/client.js';
import { Prisma } from '../../prisma/generated/client.js';
import { admitCall, queueOutboundCall } from '../calls/index.js';
import { AppError, ValidationFailed } from '../../lib/errors.js';

// `POST /api/telephony/calls/initiate`: checks the request against the organisation's numbers and assistants,
// then queues the call and returns. Dialling happens after the response, from the durable queue (modules/telephony/
// dialler.ts), so an accepted call is dialled even if this process stops right after answering.

export interface InitiateInput {
  to_phone_number: string;
  from_phone_number?: string | undefined;
  welcome_message?: string | undefined;
  variables?: Record<string, string> | undefined;
  assistant_id?: number | undefined;
  detect_voicemail?: boolean | undefined;
}

export interface InitiateResult {
  call_sid: string;
  provider_call_sid: string | null;
  /** Whether this request queued the call (false: an earlier request with the same idempotency key did). */
  created: boolean;
}

/** The request's fingerprint: a retry must be the same request, key and body. */
function requestHash(input: InitiateInput): string {
  const canonical = [
    input.to_phone_number,
    input.from_phone_number ?? null,
    input.welcome_message ?? null,
    input.assistant_id ?? null,
    input.detect_voicemail ?? false,
    Object.entries(input.variables ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  ];
  return crypto.createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

async function replay(prisma: PrismaClient, organizationId: number, key: string, hash: string): Promise<InitiateResult | null> {
  const first = await prisma.call.findFirst({ where: { organizationId, idempotencyKey: key } });
  if (!first) return null;
  if (first.idempotencyHash !== hash) {
    throw new ValidationFailed([
      {
        loc: ['header', 'idempotency-key'],
        msg: 'This key was already used with a different request; use a new key for a new call',
        type: 'idempotency_key_reused',
      },
    ]);
  }
  return { call_sid: first.callSid, provider_call_sid: first.providerCallSid, created: false };
}

export interface InitiateOptions {
  /**
   * Thrown instead of queueing a call that passed every check, by the kind of the calling number's connection (503:
   * no LiveKit server for a SIP trunk; no public URL or local agent for a carrier). The request is validated first, so a
   * client learns of a wrong number or a missing assistant whether or not calls can be placed right now.
   */
  unavailable?: { sip?: AppError | undefined; carrier?: AppError | undefined };
}

export async function initiateCall(
  prisma: PrismaClient,
  organizationId: number,
  input: InitiateInput,
  idempotencyKey?: string,
  options: InitiateOptions = {},
): Promise<InitiateResult> {
  const hash = requestHash(input);
  if (idempotencyKey) {
    const earlier = await replay(prisma, organizationId, idempotencyKey, hash);
    if (earlier) return earlier;
  }

  const from = input.from_phone_number
    ? await prisma.phoneNumber.findFirst({ where: { organizationId, number: input.from_phone_number }, include: { connection: { select: { kind: true } } } })
    : await prisma.phoneNumber.findFirst({ where: { organizationId }, orderBy: { id: 'asc' }, include: { connection: { select: { kind: true } } } });
  if (!from) {
    if (input.from_phone_number) {
      // Another organisation's number reads exactly like a number nobody has.
      throw new ValidationFailed([
        { loc: ['body', 'from_phone_number'], msg: "Value is not one of the organisation's managed numbers", type: 'not_managed_number' },
      ]);
    }
    throw new AppError(
      'phone_number_required',
      'Outbound calls need a phone connection with a number: create them with POST /api/phone-connections and POST /api/phone-numbers',
    );
  }

  const assistantId = input.assistant_id ?? from.assistantId;
  if (assistantId === null) {
    throw new AppError(
      'assistant_required',
      `No assistant to talk: give assistant_id, or assign one to ${from.number} with PATCH /api/phone-numbers/${from.id}`,
    );
  }
  const assistant = await prisma.assistant.findFirst({ where: { id: assistantId, organizationId }, select: { id: true, isActive: true } });
  if (!assistant) {
    if (input.assistant_id !== undefined) throw new ValidationFailed([{ loc: ['body', 'assistant_id'], msg: 'No such assistant', type: 'not_found' }]);
    throw new AppError('assistant_required', `The assistant of ${from.number} no longer exists: assign another`);
  }
  if (assistant.isActive === false) throw new AppError('assistant_inactive', `Assistant ${assistant.id} is not active`);
  const carrier = from.connection.kind !== 'sip';
  if (input.detect_voicemail && !carrier) {
    throw new ValidationFailed([
      {
        loc: ['body', 'detect_voicemail'],
        msg: `The carrier detects answering machines: ${from.number} is on a SIP trunk, not a carrier connection`,
        type: 'value_error',
      },
    ]);
  }
  const unavailable = carrier ? options.unavailable?.carrier : options.unavailable?.sip;
  if (unavailable) throw unavailable;

  const contact = await prisma.contact.findFirst({ where: { organizationId, phoneNumber: input.to_phone_number }, select: { id: true } });
  try {
    // Admitted under the organisation's concurrency limit in the transaction that queues it.
    const call = await prisma.$transaction(async (tx) => {
      await admitCall(tx, organizationId);
      return queueOutboundCall(tx, {
        organizationId,
        assistantId: assistant.id,
        contactId: contact?.id ?? null,
        phoneNumberId: from.id,
        transport: carrier ? 'media_stream' : 'sip',
        detectVoicemail: input.detect_voicemail ?? false,
        fromNumber: from.number,
        toNumber: input.to_phone_number,
        welcomeMessage: input.welcome_message ?? null,
        variables: input.variables ?? {},
        idempotencyKey: idempotencyKey ?? null,
        idempotencyHash: idempotencyKey ? hash : null,
      });
    });
    return { call_sid: call.callSid, provider_call_sid: null, created: true };
  } catch (error) {
    // Two requests with the same key at once: the second finds the first's call.
    if (idempotencyKey && error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
      const earlier = await replay(prisma, organizationId, idempotencyKey, hash);
      if (earlier) return earlier;
    }
    throw error;
  }
}
