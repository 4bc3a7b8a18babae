import type { CarrierAccount, CarrierAdapter, CarrierCallReport, CarrierCallState, CarrierDialRequest } from '../carrier.js';
import { callsUrl, twilioRequest, type TwilioCall } from './rest.js';
import { validTwilioSignature } from './signature.js';
import { conferenceTwiml, connectStreamTwiml, CONSULT_DECLINED_TWIML, consultTwiml, dialTwiml } from './twiml.js';

// Twilio as a carrier adapter. A call is created with inline TwiML that connects its audio, once answered, to our Media
// Streams socket (only `<Connect><Stream>` is two-way); its progress comes back on a status callback per call, and
// its answering-machine verdict on an asynchronous callback, so the conversation is never held up by detection.

/** Twilio's `CallStatus` values, in ours. `initiated` is Twilio dialling: still queued from the callee's side. */
const STATES: Record<string, CarrierCallState> = {
  queued: 'queued',
  initiated: 'queued',
  ringing: 'ringing',
  'in-progress': 'in_progress',
  answered: 'in_progress',
  completed: 'completed',
  busy: 'busy',
  'no-answer': 'no_answer',
  failed: 'failed',
  canceled: 'canceled',
};

/** Twilio's `AnsweredBy` values are already ours (human, machine_start, machine_end_beep, …, fax, unknown). */
const ANSWERED_BY = /^(human|machine_start|machine_end_beep|machine_end_silence|machine_end_other|fax|unknown)$/;

function reportOf(
  sid: string,
  status: string | undefined,
  extra: { answeredBy?: string | null | undefined; sipCode?: string | undefined; createdAt?: string | null | undefined },
): CarrierCallReport | null {
  const state = status === undefined ? undefined : STATES[status];
  if (!sid || !state) return null;
  const sip = extra.sipCode !== undefined && /^\d{3}$/.test(extra.sipCode) ? Number(extra.sipCode) : undefined;
  const created = extra.createdAt ? new Date(extra.createdAt) : undefined;
  return {
    providerCallSid: sid,
    state,
    ...(extra.answeredBy && ANSWERED_BY.test(extra.answeredBy) ? { answeredBy: extra.answeredBy } : {}),
    ...(sip !== undefined ? { sipCode: sip } : {}),
    ...(created && !Number.isNaN(created.getTime()) ? { createdAt: created } : {}),
  };
}

const fromResource = (call: TwilioCall) => reportOf(call.sid, call.status, { answeredBy: call.answered_by, createdAt: call.date_created });

export const twilioCarrier: CarrierAdapter = {
  kind: 'twilio',

  async createCall(account: CarrierAccount, request: CarrierDialRequest) {
    const form = new URLSearchParams({
      To: request.to,
      From: request.from,
      Twiml: connectStreamTwiml(request.streamUrl, { token: request.streamToken }),
      StatusCallback: request.statusCallbackUrl,
      StatusCallbackMethod: 'POST',
      Timeout: String(request.ringingTimeoutS),
      TimeLimit: String(request.maxCallDurationS),
    });
    for (const event of ['initiated', 'ringing', 'answered', 'completed']) form.append('StatusCallbackEvent', event);
    if (request.machineDetectionUrl) {
      // Asynchronous: the call is connected at once and the verdict comes later, so a person never waits on it.
      form.set('MachineDetection', 'DetectMessageEnd');
      form.set('AsyncAmd', 'true');
      form.set('AsyncAmdStatusCallback', request.machineDetectionUrl);
      form.set('AsyncAmdStatusCallbackMethod', 'POST');
    }
    const call = await twilioRequest<TwilioCall>(account, 'POST', callsUrl(account), form);
    if (!call?.sid) throw new Error('the carrier answered a call without its sid');
    return { providerCallSid: call.sid };
  },

  async hangUp(account, providerCallSid) {
    try {
      await twilioRequest(account, 'POST', callsUrl(account, providerCallSid), new URLSearchParams({ Status: 'completed' }));
    } catch (error) {
      // 21220: the call is no longer in progress, which is what was asked.
      if ((error as { details?: { carrierCode?: number } }).details?.carrierCode === 21220) return;
      throw error;
    }
  },

  async transfer(account, providerCallSid, destination, signal) {
    // Twilio's "update call" with new TwiML: it stops our stream and runs the `<Dial>`.
    await twilioRequest(account, 'POST', callsUrl(account, providerCallSid), new URLSearchParams({ Twiml: dialTwiml(destination) }), signal);
  },

  async createConsultCall(account, request) {
    const form = new URLSearchParams({
      To: request.to,
      From: request.from,
      Twiml: consultTwiml(request.briefing, request.answerUrl),
      StatusCallback: request.statusCallbackUrl,
      StatusCallbackMethod: 'POST',
      Timeout: String(request.ringingTimeoutS),
      // Asynchronous, as for outbound calls: the briefing starts at once, and a machine's verdict ends the call later.
      MachineDetection: 'Enable',
      AsyncAmd: 'true',
      AsyncAmdStatusCallback: request.machineDetectionUrl,
      AsyncAmdStatusCallbackMethod: 'POST',
    });
    for (const event of ['initiated', 'ringing', 'answered', 'completed']) form.append('StatusCallbackEvent', event);
    const call = await twilioRequest<TwilioCall>(account, 'POST', callsUrl(account), form);
    if (!call?.sid) throw new Error('the carrier answered a call without its sid');
    return { providerCallSid: call.sid };
  },

  async joinConference(account, providerCallSid, room, signal) {
    await twilioRequest(account, 'POST', callsUrl(account, providerCallSid), new URLSearchParams({ Twiml: conferenceTwiml(room) }), signal);
  },

  readConsultAnswer(params, room) {
    // `Digits` of the `<Gather>`: 1 accepts, any other key declines.
    const accepted = params.Digits === '1';
    return { accepted, reply: accepted ? conferenceTwiml(room, '<Say>Connecting you now.</Say>') : CONSULT_DECLINED_TWIML };
  },

  async fetchCall(account, providerCallSid) {
    const call = await twilioRequest<TwilioCall>(account, 'GET', callsUrl(account, providerCallSid));
    return call ? fromResource(call) : null;
  },

  async findCalls(account, query) {
    const url = new URL(callsUrl(account));
    url.searchParams.set('To', query.to);
    url.searchParams.set('From', query.from);
    url.searchParams.set('PageSize', '20');
    const page = await twilioRequest<{ calls?: TwilioCall[] }>(account, 'GET', url.toString());
    return (page?.calls ?? [])
      .map(fromResource)
      .filter((c): c is CarrierCallReport => c !== null && c.createdAt !== undefined && c.createdAt.getTime() >= query.since.getTime())
      .sort((a, b) => b.createdAt!.getTime() - a.createdAt!.getTime());
  },

  readCallback(params) {
    // An answering-machine callback carries AnsweredBy without CallStatus: the call is up.
    const status = params.CallStatus ?? (params.AnsweredBy ? 'in-progress' : undefined);
    return reportOf(params.CallSid ?? '', status, { answeredBy: params.AnsweredBy, sipCode: params.SipResponseCode });
  },

  verifySignature(account, url, params, headers) {
    const signature = headers['x-twilio-signature'];
    return validTwilioSignature(account.authToken, url, params, typeof signature === 'string' ? signature : undefined);
  },
};
