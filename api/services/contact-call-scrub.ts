import type { Db } from '../../prisma/client.js';
import { scrubberOf, scrubJson, valuesOf, type PersonalValues } from './personal-details.js';

// What is kept about a deleted contact's calls, without the contact's personal details (spec behaviour 5): run inside
// the deletion's transaction, before the contact row goes, for every call of the contact. The far end's number is
// masked to its last two digits; the call's variables are cleared; every occurrence of the contact's fields, custom
// fields, the call's variables and the numbers is replaced in the transcript (text and tool calls), the opening line,
// the summary, outcomes and analysis error, and in the events written about the call (which webhook deliveries read
// when they are sent or sent again: they hold no copy of the payload).

/** Calls scrubbed per round trip: a contact with thousands of calls is read and written in bounded pieces. */
const CALLS_PER_BATCH = 200;

const maskNumber = (number: string | null) => (number === null ? null : number.replace(/\d(?=\d{2})/g, '*'));

/** Answers how many calls were scrubbed. */
export async function scrubContactCalls(tx: Db, organizationId: number, contactId: number): Promise<number> {
  const contact = await tx.contact.findUniqueOrThrow({ where: { id: contactId } });
  const { defaultRegion: region } = await tx.organization.findUniqueOrThrow({ where: { id: organizationId }, select: { defaultRegion: true } });
  const fullName = [contact.firstName, contact.lastName].filter(Boolean).join(' ');
  const base: PersonalValues = {
    texts: [contact.firstName, contact.lastName, fullName, contact.email, contact.externalId, ...valuesOf(contact.customFields)].filter((v): v is string => !!v),
    phones: contact.phoneNumber ? [contact.phoneNumber] : [],
  };

  let scrubbed = 0;
  // Each batch clears its calls' link, so the next query finds the next calls; bounded by the contact's calls.
  for (;;) {
    const calls = await tx.call.findMany({ where: { organizationId, contactId }, orderBy: { id: 'asc' }, take: CALLS_PER_BATCH });
    if (calls.length === 0) return scrubbed;
    const scrubbers = new Map<number, ReturnType<typeof scrubberOf>>();
    const masked = new Map<string, { from: string | null; to: string | null }>();
    for (const call of calls) {
      const far = call.direction === 'inbound' ? call.fromNumber : call.toNumber;
      const scrub = scrubberOf({ texts: [...base.texts, ...valuesOf(call.variables)], phones: [...base.phones, ...(far ? [far] : [])] }, region);
      scrubbers.set(call.id, scrub);
      const numbers = {
        from: call.direction === 'inbound' ? maskNumber(call.fromNumber) : call.fromNumber,
        to: call.direction === 'outbound' ? maskNumber(call.toNumber) : call.toNumber,
      };
      masked.set(call.callSid, numbers);
      await tx.call.update({
        where: { id: call.id },
        data: {
          fromNumber: numbers.from,
          toNumber: numbers.to,
          variables: {},
          contactId: null,
          welcomeMessage: call.welcomeMessage === null ? null : scrub(call.welcomeMessage),
          summary: call.summary === null ? null : scrub(call.summary),
          analysisError: call.analysisError === null ? null : scrub(call.analysisError),
          ...(call.outcomes === null ? {} : { outcomes: scrubJson(call.outcomes, scrub) as object }),
        },
      });
    }

    const turns = await tx.callTurn.findMany({ where: { callId: { in: calls.map((c) => c.id) } } });
    for (const turn of turns) {
      const scrub = scrubbers.get(turn.callId)!;
      const text = scrub(turn.text);
      const toolCalls = turn.toolCalls === null ? null : scrubJson(turn.toolCalls, scrub);
      if (text === turn.text && JSON.stringify(toolCalls) === JSON.stringify(turn.toolCalls)) continue;
      await tx.callTurn.update({ where: { id: turn.id }, data: { text, ...(toolCalls === null ? {} : { toolCalls: toolCalls as object }) } });
    }

    const sids = calls.map((c) => c.callSid);
    const events = await tx.$queryRaw<Array<{ id: string; payload: Record<string, unknown> }>>`
      SELECT id, payload FROM events WHERE organization_id = ${organizationId} AND payload->>'call_sid' = ANY(${sids}::text[])`;
    for (const event of events) {
      const callSid = String(event.payload.call_sid);
      const call = calls.find((c) => c.callSid === callSid)!;
      const numbers = masked.get(callSid)!;
      const payload = { ...(scrubJson(event.payload, scrubbers.get(call.id)!) as Record<string, unknown>), from_number: numbers.from, to_number: numbers.to, contact_id: null };
      await tx.event.update({ where: { id: event.id }, data: { payload } });
    }
    scrubbed += calls.length;
  }
}
