import type { Db } from '../../prisma/client.js';
import { scrubberOf, scrubJson, valuesOf } from './personal-details.js';

// A deleted contact's test runs, as its calls are kept (call-scrub.ts): a run that named the contact keeps its results
// without them. Run inside the deletion's transaction, before the contact row goes: the request's `contact_id` is
// cleared and its variables emptied, and every occurrence of the contact's fields and the run's variables is replaced
// in the results (transcripts, tool calls, judges' reasons) and in the stored request.

export async function scrubContactTestRuns(tx: Db, organizationId: number, contactId: number): Promise<number> {
  const runs = await tx.$queryRaw<Array<{ id: number; request: Record<string, unknown>; results: unknown }>>`
    SELECT id, request, results FROM test_runs
    WHERE organization_id = ${organizationId} AND request->>'contact_id' = ${String(contactId)}`;
  if (runs.length === 0) return 0;
  const contact = await tx.contact.findUniqueOrThrow({ where: { id: contactId } });
  const { defaultRegion: region } = await tx.organization.findUniqueOrThrow({ where: { id: organizationId }, select: { defaultRegion: true } });
  const fullName = [contact.firstName, contact.lastName].filter(Boolean).join(' ');
  const texts = [contact.firstName, contact.lastName, fullName, contact.email, contact.externalId, ...valuesOf(contact.customFields)].filter(
    (v): v is string => !!v,
  );
  const rows = runs.map((run) => {
    const scrub = scrubberOf({ texts: [...texts, ...valuesOf(run.request.variables ?? {})], phones: contact.phoneNumber ? [contact.phoneNumber] : [] }, region);
    const request = { ...(scrubJson(run.request, scrub) as Record<string, unknown>), contact_id: null, variables: {} };
    return { id: run.id, request, results: scrubJson(run.results, scrub) };
  });
  await tx.$executeRaw`
    UPDATE test_runs r SET request = u.request, results = u.results, updated_at = now()
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS u(id int, request jsonb, results jsonb)
    WHERE r.id = u.id`;
  return rows.length;
}
