import type { PrismaClient } from '../../prisma/client.js';
import { SecretBox } from '../../lib/secret-box.js';
import { createAssistant } from '../../modules/assistants/service.js';
import { endUnstartedCall } from '../../modules/calls/lifecycle.js';
import { CampaignWrite } from '../../modules/campaigns/schemas.js';
import { createCampaign, transitionCampaign } from '../../modules/campaigns/service.js';
import { bootstrap } from '../../modules/organizations/bootstrap.js';
import { createPhoneConnection } from '../../modules/telephony/phone-connections.js';
import { createPhoneNumber } from '../../modules/telephony/phone-numbers.js';

// An organisation with an assistant, a SIP trunk's calling number and a campaign of the given contacts, started; and
// the ways a queued call of it can end, as the dialler and the runtime end them.

const secrets = new SecretBox(Buffer.alloc(32, 3));
let worlds = 0;
const STARTED_AT = new Date('2026-01-01T00:00:00Z');

export interface CampaignWorld {
  organizationId: number;
  campaignId: number;
  contactIds: number[];
}

export async function campaignWorld(
  prisma: PrismaClient,
  people: Array<{ phone: string; timezone?: string }>,
  settings: Record<string, unknown> = {},
  options: { maxConcurrentCalls?: number; startedAt?: Date } = {},
): Promise<CampaignWorld> {
  worlds++;
  const boot = await bootstrap(prisma, { organizationName: `Campaigns ${worlds}`, email: `owner${worlds}-${Date.now()}@campaigns.example` });
  const organizationId = boot.organization_id;
  if (options.maxConcurrentCalls) await prisma.organization.update({ where: { id: organizationId }, data: { maxConcurrentCalls: options.maxConcurrentCalls } });
  const assistant = await createAssistant(prisma, { organizationId, userId: boot.user_id }, { name: 'Caller' } as never, secrets);
  const connection = await createPhoneConnection(prisma, secrets, organizationId, { name: 'Trunk', sip_address: 'sip.carrier.example' });
  const from = `+1650555${String(worlds).padStart(4, '0')}`;
  await createPhoneNumber(prisma, organizationId, { number: from, phone_connection_id: connection.id, label: null, assistant_id: assistant.id });
  const contactIds: number[] = [];
  for (const person of people) {
    const contact = await prisma.contact.create({
      data: { organizationId, phoneNumber: person.phone, timezone: person.timezone ?? null, source: 'api', customFields: {} },
    });
    contactIds.push(contact.id);
  }
  const input = CampaignWrite.parse({ name: 'Campaign', assistant_id: assistant.id, from_numbers: [from], ...settings });
  const campaign = await createCampaign(prisma, organizationId, input);
  await prisma.campaignContact.createMany({ data: contactIds.map((contactId) => ({ campaignId: campaign.id, contactId })) });
  // Started before any clock a test sets (the tests read the schedule on days of their own), so that every call the
  // campaign places counts as one of its attempts, whatever day the test runs.
  await transitionCampaign(prisma, organizationId, campaign.id, 'start', options.startedAt ?? STARTED_AT);
  return { organizationId, campaignId: campaign.id, contactIds };
}

/** Every day, all day: calling hours are not what such a test is about. */
export const ALWAYS = { windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start: '00:00', end: '24:00' }] };

/** The campaign's calls, oldest first. */
export function campaignCalls(prisma: PrismaClient, campaignId: number) {
  return prisma.call.findMany({ where: { campaignId }, orderBy: { id: 'asc' } });
}

/** Ends a queued call as the dialler would: busy, unanswered, failed; or answered and talked to its end. */
export async function endCall(prisma: PrismaClient, callId: number, how: 'answered' | 'busy' | 'no_answer' | 'failed', at = new Date()): Promise<void> {
  if (how === 'answered') {
    await prisma.call.update({ where: { id: callId }, data: { status: 'completed', endReason: 'customer_hangup', startedAt: at, endedAt: at, durationMs: 0 } });
    return;
  }
  await endUnstartedCall(prisma, callId, how, how, at);
}
