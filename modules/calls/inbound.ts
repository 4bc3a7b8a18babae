import type { PrismaClient } from '../../prisma/client.js';
import { newCallSid } from './call-sid.js';
import { normalizePhone } from '../../lib/phone.js';

// An inbound call, whatever carried it (LiveKit SIP, a carrier's Media Streams): the managed number it arrived on names
// the organisation and the assistant; the caller becomes a contact if the organisation has none with that number
// (spec behaviour 4: a call creates the person, a sync only adds their name).

export type CallRow = Awaited<ReturnType<PrismaClient['call']['create']>>;

export interface InboundCallRequest {
  /** The managed number called, as the carrier gives it. */
  toNumber: string;
  /** The caller's number; withheld numbers arrive empty or as "anonymous". */
  fromNumber: string | null;
  transport: 'sip' | 'media_stream';
  providerCallSid?: string | null;
  livekitRoom?: string | null;
}

export type InboundCallResult = { call: CallRow } | { rejected: 'unknown_number' | 'no_assistant' };

/** The organisation's contact for `phone` (E.164), created when it has none; concurrent calls share one contact. */
async function contactFor(prisma: PrismaClient, organizationId: number, phone: string): Promise<number> {
  // ON CONFLICT on the (organization_id, phone_number) unique index: two calls from a new number at once make one.
  const rows = await prisma.$queryRaw<{ id: number }[]>`
    INSERT INTO contacts (organization_id, phone_number, source, custom_fields, last_seen_at, created_at, updated_at)
    VALUES (${organizationId}, ${phone}, 'inbound_call', '{}'::jsonb, now(), now(), now())
    ON CONFLICT (organization_id, phone_number) DO UPDATE SET last_seen_at = now()
    RETURNING id`;
  return rows[0]!.id;
}

export async function openInboundCall(prisma: PrismaClient, request: InboundCallRequest): Promise<InboundCallResult> {
  const to = normalizePhone(request.toNumber, 'US')?.e164 ?? request.toNumber;
  const number = await prisma.phoneNumber.findUnique({ where: { number: to }, include: { organization: { select: { defaultRegion: true } } } });
  if (!number) return { rejected: 'unknown_number' };
  if (number.assistantId === null) return { rejected: 'no_assistant' };

  // A national-format caller id is read in the organisation's region, as its contacts are.
  const from = request.fromNumber ? normalizePhone(request.fromNumber, number.organization.defaultRegion)?.e164 ?? null : null;
  const contactId = from ? await contactFor(prisma, number.organizationId, from) : null;
  const call = await prisma.call.create({
    data: {
      callSid: newCallSid(),
      organizationId: number.organizationId,
      assistantId: number.assistantId,
      contactId,
      phoneNumberId: number.id,
      direction: 'inbound',
      transport: request.transport,
      status: 'ringing',
      fromNumber: from ?? request.fromNumber ?? null,
      toNumber: number.number,
      providerCallSid: request.providerCallSid ?? null,
      livekitRoom: request.livekitRoom ?? null,
    },
  });
  return { call };
}
