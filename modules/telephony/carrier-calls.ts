import type { PrismaClient } from '../../prisma/client.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { type CallRow, endUnstartedCall, markCallRinging, NOT_STARTED, recordAnsweredBy } from '../calls/index.js';
import type { CarrierAccount, CarrierAdapter, CarrierCallReport } from './carriers/carrier.js';
import { carrierOfKind } from './carriers/registry.js';
import { statusOfSipFailure } from './sip-failures.js';
import { openedConnectionSecret } from './phone-connections.js';

// A call carried by a carrier connection: its account, opened from the connection, and what the carrier's reports do
// to it. Reports arrive as status callbacks, in any order and possibly twice; each moves the call through the
// lifecycle's compare-and-set, so a late `ringing` after the end, or a repeated `completed`, changes nothing.

export interface CarrierOfCall {
  adapter: CarrierAdapter;
  account: CarrierAccount;
}

/** The carrier's REST API base URL (TWILIO_API_BASE_URL), the same for every account of the deployment. */
export interface CarrierSettings {
  apiBaseUrl: string;
  secrets: SecretBox | undefined;
}

/** The carrier and account of a number's connection; null for a SIP trunk, or credentials that do not open. */
export function carrierOfConnection(
  settings: CarrierSettings,
  connection: { kind: string; organizationId: number; accountSid: string | null; password: string | null; authToken: string | null },
): CarrierOfCall | null {
  const adapter = carrierOfKind(connection.kind);
  const authToken = openedConnectionSecret(settings.secrets, connection, 'auth_token');
  if (!adapter || !connection.accountSid || !authToken) return null;
  return { adapter, account: { accountSid: connection.accountSid, authToken, apiBaseUrl: settings.apiBaseUrl } };
}

/** The carrier a call was placed through or arrived on; null when its number or connection is gone, or is a SIP trunk. */
export async function carrierOfCall(prisma: PrismaClient, settings: CarrierSettings, call: Pick<CallRow, 'phoneNumberId'>): Promise<CarrierOfCall | null> {
  if (call.phoneNumberId === null) return null;
  const number = await prisma.phoneNumber.findUnique({ where: { id: call.phoneNumberId }, include: { connection: true } });
  return number ? carrierOfConnection(settings, number.connection) : null;
}

/**
 * Applies what the carrier says of a call that had not started. The conversation itself starts when the answered call's
 * stream connects, and ends when it stops; a carrier's `completed` for a call that never started means its audio never
 * reached us (or a machine answered and hung up first).
 */
export async function applyCarrierReport(prisma: PrismaClient, call: CallRow, report: CarrierCallReport): Promise<void> {
  // Only the call the carrier created for this row fills it: a stray report for another call id changes nothing.
  if (call.providerCallSid !== null && call.providerCallSid !== report.providerCallSid) return;
  if (call.providerCallSid === null)
    await prisma.call.updateMany({ where: { id: call.id, providerCallSid: null }, data: { providerCallSid: report.providerCallSid } });
  // The verdict reaches the running call (agent/call/voicemail.ts) in whichever process runs it.
  if (report.answeredBy && call.answeredBy !== report.answeredBy) await recordAnsweredBy(prisma, call.id, report.answeredBy);
  if (!(NOT_STARTED as readonly string[]).includes(call.status)) return;
  switch (report.state) {
    case 'queued':
    case 'in_progress':
      return;
    case 'ringing':
      await markCallRinging(prisma, call.id);
      return;
    case 'busy':
      await endUnstartedCall(prisma, call.id, 'busy', 'busy');
      return;
    case 'no_answer':
      await endUnstartedCall(prisma, call.id, 'no_answer', 'no_answer');
      return;
    case 'canceled':
      await endUnstartedCall(prisma, call.id, 'canceled', 'canceled');
      return;
    case 'failed': {
      const { status, reason } = report.sipCode ? statusOfSipFailure(report.sipCode) : { status: 'failed' as const, reason: 'carrier_failed' };
      await endUnstartedCall(prisma, call.id, status, reason);
      return;
    }
    case 'completed': {
      const machine = (report.answeredBy ?? call.answeredBy ?? '').startsWith('machine') || report.answeredBy === 'fax';
      if (machine) await endUnstartedCall(prisma, call.id, 'voicemail', 'voicemail');
      else await endUnstartedCall(prisma, call.id, 'failed', 'media_never_connected');
      return;
    }
  }
}
