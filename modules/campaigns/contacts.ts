import type { PrismaClient } from '../../prisma/client.js';
import { AppError, notFound } from '../../lib/errors.js';
import { type ContactFilters, contactWhere, importContacts, loadPropertyDefs } from '../contacts/index.js';
import type { z } from 'zod';
import type { CampaignContactsAdd } from './schemas.js';

// A campaign's contacts: added by id, by the contacts list's own filters, or by importing a CSV through the contacts
// import (new people created and normalised there, with its per-row report). A contact is in a campaign once; one
// without a phone number is left out, with nothing to dial. Contacts are added while the campaign is a draft or
// paused, or while it runs (they join the queue); not once it has ended.

/** A filter finds at most this many contacts for one request: a larger list is a CSV import, or several filters. */
const MAX_FILTERED = 100_000;
const OPEN = ['draft', 'scheduled', 'running', 'paused'];
/** Import columns named `var.<name>` are the contact's variables for this campaign's calls, not contact fields. */
const VARIABLE_COLUMN = /^var\.([A-Za-z_][A-Za-z0-9_]{0,63})$/;

async function openCampaign(prisma: PrismaClient, organizationId: number, campaignId: number) {
  const campaign = await prisma.campaign.findFirst({ where: { id: campaignId, organizationId }, select: { id: true, state: true } });
  if (!campaign) throw notFound('Campaign');
  if (!OPEN.includes(campaign.state))
    throw new AppError('invalid_state', `Campaign ${campaignId} is ${campaign.state}: contacts can no longer be added`, { state: campaign.state });
  return campaign;
}

/** Adds contacts (with their import variables); answers how many were new and how many it had already. */
async function addRows(
  prisma: PrismaClient,
  campaignId: number,
  rows: Array<{ contactId: number; variables?: Record<string, string> }>,
): Promise<{ added: number; alreadyIn: number }> {
  let added = 0;
  for (let i = 0; i < rows.length; i += 5_000) {
    const batch = rows.slice(i, i + 5_000);
    const result = await prisma.campaignContact.createMany({
      data: batch.map((r) => ({ campaignId, contactId: r.contactId, variables: r.variables ?? {} })),
      skipDuplicates: true,
    });
    added += result.count;
  }
  return { added, alreadyIn: rows.length - added };
}

export async function addCampaignContacts(prisma: PrismaClient, organizationId: number, campaignId: number, body: z.output<typeof CampaignContactsAdd>) {
  await openCampaign(prisma, organizationId, campaignId);
  const ids = new Set<number>();
  const notFoundIds: number[] = [];
  let withoutPhone = 0;
  if (body.contact_ids?.length) {
    const unique = [...new Set(body.contact_ids)];
    const found = await prisma.contact.findMany({ where: { organizationId, id: { in: unique } }, select: { id: true, phoneNumber: true } });
    const byId = new Map(found.map((c) => [c.id, c]));
    for (const id of unique) {
      const contact = byId.get(id);
      if (!contact) notFoundIds.push(id);
      else if (!contact.phoneNumber) withoutPhone++;
      else ids.add(id);
    }
  }
  if (body.filter) {
    const f = body.filter;
    const filters: ContactFilters = {
      ...(f.source ? { source: f.source } : {}),
      ...(f.campaign_id ? { campaign_id: f.campaign_id } : {}),
      ...(f.has_email !== undefined ? { has_email: [f.has_email] } : {}),
      ...(f.has_phone !== undefined ? { has_phone: [f.has_phone] } : {}),
      ...(f.last_seen_after ? { last_seen_after: [new Date(f.last_seen_after)] } : {}),
      ...(f.last_seen_before ? { last_seen_before: [new Date(f.last_seen_before)] } : {}),
      ...(f.q ? { q: [f.q.trim()] } : {}),
      ...(f.custom ? { custom: f.custom } : {}),
    };
    const where = contactWhere(organizationId, filters, await loadPropertyDefs(prisma, organizationId));
    const matched = await prisma.contact.findMany({ where, select: { id: true, phoneNumber: true }, orderBy: { id: 'asc' }, take: MAX_FILTERED + 1 });
    if (matched.length > MAX_FILTERED) throw new AppError('bad_request', `The filter finds more than ${MAX_FILTERED} contacts: narrow it, or import the list`);
    for (const c of matched) {
      if (!c.phoneNumber) withoutPhone++;
      else ids.add(c.id);
    }
  }
  const { added, alreadyIn } = await addRows(
    prisma,
    campaignId,
    [...ids].map((contactId) => ({ contactId })),
  );
  return { added, already_in: alreadyIn, without_phone: withoutPhone, not_found: notFoundIds };
}

/**
 * Imports a CSV's rows as contacts (created or updated by the contacts import, which reports each row) and adds every
 * row that landed, with its `var.*` columns as the contact's variables in this campaign.
 */
export async function importCampaignContacts(prisma: PrismaClient, organizationId: number, campaignId: number, records: Record<string, string>[]) {
  await openCampaign(prisma, organizationId, campaignId);
  const variables = records.map((record) =>
    Object.fromEntries(Object.entries(record).flatMap(([k, v]) => (VARIABLE_COLUMN.test(k) && v !== '' ? [[VARIABLE_COLUMN.exec(k)![1]!, v]] : []))),
  );
  const contactFields = records.map((record) => Object.fromEntries(Object.entries(record).filter(([k]) => !VARIABLE_COLUMN.test(k))));
  const report = await importContacts(prisma, organizationId, 'csv', contactFields);
  const landed = report.rows.filter((r) => r.contact_id !== null && (r.status === 'created' || r.status === 'updated'));
  const phones = new Map(
    (await prisma.contact.findMany({ where: { organizationId, id: { in: landed.map((r) => r.contact_id!) } }, select: { id: true, phoneNumber: true } })).map(
      (c) => [c.id, c.phoneNumber],
    ),
  );
  const rows = new Map<number, Record<string, string>>();
  let withoutPhone = 0;
  for (const row of landed) {
    if (!phones.get(row.contact_id!)) withoutPhone++;
    else rows.set(row.contact_id!, { ...rows.get(row.contact_id!), ...variables[row.index] });
  }
  const { added, alreadyIn } = await addRows(
    prisma,
    campaignId,
    [...rows].map(([contactId, vars]) => ({ contactId, variables: vars })),
  );
  return { ...report, added, already_in: alreadyIn, without_phone: withoutPhone };
}

export async function listCampaignContacts(prisma: PrismaClient, organizationId: number, campaignId: number, page: number, perPage: number) {
  const campaign = await prisma.campaign.findFirst({ where: { id: campaignId, organizationId }, select: { id: true } });
  if (!campaign) throw notFound('Campaign');
  const [rows, total] = await Promise.all([
    prisma.campaignContact.findMany({
      where: { campaignId },
      orderBy: { contactId: 'asc' },
      skip: (page - 1) * perPage,
      take: perPage,
      include: { contact: { select: { phoneNumber: true } } },
    }),
    prisma.campaignContact.count({ where: { campaignId } }),
  ]);
  const calls = new Map(
    (
      await prisma.call.findMany({
        where: { id: { in: rows.flatMap((r) => (r.lastCallId ? [r.lastCallId] : [])) } },
        select: { id: true, callSid: true, status: true },
      })
    ).map((c) => [c.id, c]),
  );
  const data = rows.map((r) => {
    const call = r.lastCallId ? calls.get(r.lastCallId) : undefined;
    const state = r.state === 'dialling' && call?.status === 'in_progress' ? 'in_call' : r.state;
    return {
      contact_id: r.contactId,
      phone_number: r.contact.phoneNumber,
      state: state as 'pending',
      attempts: r.attempts,
      next_attempt_at: r.nextAttemptAt?.toISOString() ?? null,
      last_outcome: r.lastOutcome as 'answered' | null,
      last_call_sid: call?.callSid ?? null,
      variables: r.variables as Record<string, string>,
    };
  });
  return { data, total };
}
