import { initializeLogger } from '@livekit/agents';
import { mkdtemp } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audioRunnerOf } from '../../agent/io/audio-link.js';
import { LocalCallRunner } from '../../agent/local-runner.js';
import { twilioSignature } from '../../modules/telephony/carriers/twilio/signature.js';
import type { CallAudioRunner } from '../../modules/calls/audio-runner.js';
import { createApiContext, type ApiContext, type Tenant } from '../helpers/api.js';
import { startFakeTwilioRest, type FakeTwilioRest } from '../fakes/twilio-rest.js';
import type { FakeOpenAI, OpenAIReply } from '../fakes/vendors/openai.js';
import { messagesOf, startFakeCallModel } from '../fakes/vendors/call-model.js';
import { localSettings } from './call-harness.js';
import { loopbackVendorAccess } from '../helpers/vendor-hosts.js';
import { scaledClockInEachTest } from '../helpers/scaled-clock.js';
import { endRunnerAndRemoveData } from '../helpers/runner-teardown.js';
import { until } from '../helpers/until.js';
import { carrierCall as placeCarrierCall, type CarrierLine, endedCall as endedCarrierCall } from './carrier-caller.js';

// A warm transfer in whole audio calls on a carrier's line. The test plays the carrier for the caller: it POSTs the
// signed voice webhook, streams the caller's words as 8 kHz mu-law over the Media Streams socket and hears what comes
// back. The carrier's REST API is the fake, which also plays the person the transfer calls: it runs the briefing's
// TwiML, presses a key (or not, or is a machine), POSTs it to our signed Gather action, and joins conferences. The
// model is the OpenAI-compatible fake: it calls the transfer, and writes the briefing when asked with the team's prompt.

initializeLogger({ pretty: false, level: 'silent' });
scaledClockInEachTest();

const AUTH_TOKEN = 'carrier-auth-token';
const DESK = '+14155550142';
const NUMBER = '+14155550311';
const BRIEFING_PROMPT = 'Brief the desk in one sentence: the caller and their problem.';
const BRIEFING = 'Jane Doe is calling to book an appointment.';
/** What the caller says: a phrase the offline recogniser of the test calls knows (call-harness.ts, PHRASES). */
const WORDS = 'book an appointment';
const DECLINED = 'Nobody at the desk can take your call right now, but I can still help.';
const AFTER = 'What else can I do for you?';

let api: ApiContext;
let llm: FakeOpenAI;
let carrier: FakeTwilioRest;
let acme: Tenant;
let base: string;
let runner: CallAudioRunner | undefined;
let local: LocalCallRunner | undefined;
let dataDir: string | undefined;
const assistantSaid = new Map<number, string[]>();

beforeAll(async () => {
  llm = await startFakeCallModel('Call handled.', (body) => {
    const messages = messagesOf(body);
    if (String(messages[0]?.content ?? '') === BRIEFING_PROMPT) return { text: BRIEFING } satisfies OpenAIReply;
    return messages.some((m) => m.role === 'tool') ? { text: AFTER } : { toolCalls: [{ name: 'transfer_to_desk', arguments: '{}' }] };
  });
  carrier = await startFakeTwilioRest({ authToken: AUTH_TOKEN });
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'call-warm-transfer-'));
  api = await createApiContext({
    twilioAuthToken: AUTH_TOKEN,
    callAudioRunner: {
      open: (id) => {
        const link = runner!.open(id);
        const said: string[] = [];
        assistantSaid.set(id, said);
        link.onTranscript((entry) => void (entry.role === 'assistant' && said.push(entry.text)));
        return link;
      },
    },
  });
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  // The carrier's callbacks about the person's call come to the service's public URL: here, the API just started.
  local = new LocalCallRunner(api.db.prisma, dataDir, {
    carrier: { accountSid: carrier.accountSid, authToken: AUTH_TOKEN, apiBaseUrl: carrier.url },
    access: loopbackVendorAccess(),
    publicUrl: base,
  });
  runner = audioRunnerOf(local);
  acme = await api.tenant('Acme');
  const conn = await api.call(acme, 'POST', '/api/phone-connections', { name: 'Carrier', sip_address: 'sip.carrier.example' });
  const tool = await api.call(acme, 'POST', '/api/tools', {
    name: 'transfer_to_desk',
    description: 'Puts the caller through to the front desk',
    type: 'transfer_call',
    transfer: {
      destination: DESK,
      mode: 'warm',
      handoff_message: 'Let me check whether the desk is free.',
      briefing_prompt: BRIEFING_PROMPT,
      hold_audio: 'tone',
      ring_timeout_s: 5,
      on_decline_message: DECLINED,
    },
  });
  expect(tool.status, JSON.stringify(tool.body)).toBe(201);
  const assistant = await api.call(acme, 'POST', '/api/assistants', localSettings(llm.url, { name: 'Desk', assigned_tools: [tool.body.data.id] }));
  expect(assistant.status, JSON.stringify(assistant.body)).toBe(201);
  await api.call(acme, 'POST', '/api/phone-numbers', { number: NUMBER, phone_connection_id: conn.body.data.id, assistant_id: assistant.body.id });
});
afterAll(() =>
  endRunnerAndRemoveData(local, dataDir, async () => {
    await api.close();
    await Promise.all([llm.close(), carrier.close()]);
  }),
);

/** Power of `hz` in 8 kHz samples against their whole energy (Goertzel): near 1 for a pure tone of that frequency. */
function toneShare(samples: Int16Array, hz: number): number {
  const k = (2 * Math.cos((2 * Math.PI * hz) / 8000)) as number;
  let s1 = 0;
  let s2 = 0;
  let energy = 0;
  for (const x of samples) {
    const s = x + k * s1 - s2;
    s2 = s1;
    s1 = s;
    energy += x * x;
  }
  const power = s1 * s1 + s2 * s2 - k * s1 * s2;
  return energy === 0 ? 0 : (2 * power) / (samples.length * energy);
}

const line = (): CarrierLine => ({ base, authToken: AUTH_TOKEN, prisma: api.db.prisma, assistantSaid, capMs: 120_000 });

/**
 * One phone call as the carrier makes it (carrier-caller.ts), on the assistant's number; the carrier stops our stream
 * once it moves the call elsewhere (a conference), as it does a transferred call's.
 */
async function carrierCall(callSid: string, words: string, opts: { hangUpAfter?: string } = {}) {
  carrier.addCall(callSid);
  const call = await placeCarrierCall(line(), callSid, NUMBER, words, opts);
  carrier.onUpdate((u) => {
    if (u.callSid === callSid && u.form.Twiml) setTimeout(call.stop, 0);
  });
  return call;
}

const endedCall = (callSid: string) => endedCarrierCall(api.db.prisma, callSid, 60_000);

const toolCallsOf = (turns: Array<{ toolCalls: unknown }>) => turns.flatMap((t) => (t.toolCalls as Array<Record<string, unknown>> | null) ?? []);
/** How many 20 ms frames the caller heard of the hold tone (440 Hz). */
const toneFrames = (heard: Int16Array[]) => heard.filter((f) => toneShare(f, 440) > 0.6).length;
const consultsSince = (n: number) => carrier.created.slice(n).filter((c) => c.form.To === DESK);

/** The `call.transfer` event of a call (its `call_sid`, not the carrier's), once recorded (beside the call, so possibly just after it ends). */
async function transferEvent(callSid: string): Promise<Record<string, unknown>> {
  return until(async () => {
    const events = await api.db.prisma.event.findMany({ where: { type: 'call.transfer' } });
    return events.map((e) => e.payload as Record<string, unknown>).find((p) => p.call_sid === callSid);
  });
}

describe('a warm transfer on a carrier’s Media Streams call', () => {
  it('holds the caller, briefs the person, who presses 1, and joins both calls in one conference: the call ends as transferred', async () => {
    carrier.scriptCallee(DESK, { press: '1', pressAfterMs: 300 });
    const before = carrier.created.length;
    const call = await carrierCall('CAwarmaccept', WORDS);
    const heard = await call.closed;

    const [consult] = consultsSince(before);
    expect(consult, 'the person was called').toBeDefined();
    expect(consult!.form).toMatchObject({ To: DESK, From: NUMBER, MachineDetection: 'Enable', AsyncAmd: 'true', Timeout: '5' });
    // The person heard the briefing the model wrote with the team's prompt, and the question.
    expect(consult!.consult!.said).toEqual([BRIEFING, 'Press 1 to take the call, or 2 to decline.']);
    expect(consult!.consult!.replyStatus).toBe(200);
    const room = /<Conference[^>]*>([^<]+)<\/Conference>/.exec(consult!.consult!.reply!)?.[1];
    expect(room).toMatch(/^[0-9a-f]{32}$/);
    // The caller's call was moved into the same conference, after the person.
    expect(carrier.conferences.get(room!)).toEqual([consult!.sid, 'CAwarmaccept']);
    // The caller heard the hold tone while the person was called.
    expect(toneFrames(heard)).toBeGreaterThan(10);

    const stored = await endedCall('CAwarmaccept');
    expect(stored).toMatchObject({ status: 'completed', endReason: 'transferred' });
    expect(stored.turns.map((t) => [t.role, t.text])).toEqual(expect.arrayContaining([['assistant', 'Let me check whether the desk is free.']]));
    expect(toolCallsOf(stored.turns)).toEqual([
      expect.objectContaining({
        name: 'transfer_to_desk',
        is_error: false,
        output: { transferred_to: DESK, mode: 'warm', outcome: 'accepted', held_ms: expect.any(Number), briefing: BRIEFING },
      }),
    ]);
    const row = await api.db.prisma.warmTransfer.findFirstOrThrow({ where: { callId: stored.id } });
    expect(row).toMatchObject({ state: 'accepted', consultCallSid: consult!.sid, answeredBy: 'human', token: room });
    // Webhook receivers hear of it as it happens, not only from call.completed.
    expect(await transferEvent(stored.callSid)).toEqual({
      call_sid: stored.callSid,
      assistant_id: stored.assistantId,
      tool: 'transfer_to_desk',
      mode: 'warm',
      outcome: 'accepted',
      destination: DESK,
      held_ms: expect.any(Number),
      at: expect.any(String),
    });
  }, 150_000);

  it('ends the call as transferred when the carrier stops the caller’s stream before it answers the move into the conference', async () => {
    carrier.scriptCallee(DESK, { press: '1', pressAfterMs: 300 });
    // The move's answer comes 400 ms after the carrier has already taken the caller off our stream.
    carrier.delayAnswers('CAwarmearly', 400);
    const before = carrier.created.length;
    const call = await carrierCall('CAwarmearly', WORDS);
    await call.closed;
    const [consult] = consultsSince(before);
    const room = /<Conference[^>]*>([^<]+)<\/Conference>/.exec(consult!.consult!.reply!)?.[1];
    expect(carrier.conferences.get(room!)).toEqual([consult!.sid, 'CAwarmearly']);
    const stored = await endedCall('CAwarmearly');
    expect(stored).toMatchObject({ status: 'completed', endReason: 'transferred' });
    expect(toolCallsOf(stored.turns)).toEqual([expect.objectContaining({ output: expect.objectContaining({ mode: 'warm', outcome: 'accepted' }) })]);
  }, 150_000);

  it('takes the caller back when the person presses 2: the caller is told, the conversation goes on', async () => {
    carrier.scriptCallee(DESK, { press: '2', pressAfterMs: 300 });
    const before = carrier.created.length;
    const call = await carrierCall('CAwarmdecline', WORDS, { hangUpAfter: AFTER });
    const heard = await call.closed;

    const [consult] = consultsSince(before);
    expect(consult!.consult!.digits).toBe('2');
    expect(consult!.consult!.reply).toContain('<Hangup/>');
    expect(carrier.updates.filter((u) => u.callSid === 'CAwarmdecline')).toEqual([]);
    expect(toneFrames(heard)).toBeGreaterThan(10);
    const stored = await endedCall('CAwarmdecline');
    expect(stored.endReason).not.toBe('transferred');
    const said = stored.turns.filter((t) => t.role === 'assistant').map((t) => t.text);
    // The decline message, then the model's own next reply: the call went on.
    expect(said.indexOf(DECLINED)).toBeGreaterThan(-1);
    expect(said.indexOf(AFTER)).toBeGreaterThan(said.indexOf(DECLINED));
    expect(toolCallsOf(stored.turns)).toEqual([
      expect.objectContaining({
        name: 'transfer_to_desk',
        is_error: false,
        output: expect.objectContaining({ mode: 'warm', outcome: 'declined', briefing: BRIEFING, caller_was_told: DECLINED }),
      }),
    ]);
    // A declined transfer is a caller the desk may want to call back: the event says so while the call goes on.
    expect(await transferEvent(stored.callSid)).toMatchObject({ mode: 'warm', outcome: 'declined', destination: DESK });
  }, 150_000);

  it('hangs up on a voicemail and takes the caller back', async () => {
    carrier.scriptCallee(DESK, { answeredBy: 'machine_start' });
    const before = carrier.created.length;
    const call = await carrierCall('CAwarmmachine', WORDS, { hangUpAfter: AFTER });
    await call.closed;
    const [consult] = consultsSince(before);
    // The service ended the machine's call through the REST API.
    expect(carrier.updates.filter((u) => u.callSid === consult!.sid).map((u) => u.form.Status)).toEqual(['completed']);
    expect(consult!.consult!.digits).toBeUndefined();
    const stored = await endedCall('CAwarmmachine');
    expect(stored.endReason).not.toBe('transferred');
    expect(toolCallsOf(stored.turns)).toEqual([expect.objectContaining({ output: expect.objectContaining({ outcome: 'voicemail' }) })]);
    expect(stored.turns.some((t) => t.role === 'assistant' && t.text === DECLINED)).toBe(true);
    const row = await api.db.prisma.warmTransfer.findFirstOrThrow({ where: { callId: stored.id } });
    expect(row).toMatchObject({ state: 'voicemail', answeredBy: 'machine_start' });
  }, 150_000);

  it('takes the caller back when nobody answers', async () => {
    carrier.scriptCallee(DESK, { outcome: 'no-answer' });
    const call = await carrierCall('CAwarmnoanswer', WORDS, { hangUpAfter: AFTER });
    await call.closed;
    const stored = await endedCall('CAwarmnoanswer');
    expect(toolCallsOf(stored.turns)).toEqual([expect.objectContaining({ output: expect.objectContaining({ outcome: 'no_answer' }) })]);
    expect(stored.turns.some((t) => t.role === 'assistant' && t.text === DECLINED)).toBe(true);
    expect(await transferEvent(stored.callSid)).toMatchObject({ mode: 'warm', outcome: 'no_answer' });
  }, 150_000);

  it('refuses a callback about a consultation that the carrier did not sign', async () => {
    const row = await api.db.prisma.warmTransfer.findFirstOrThrow({ where: { state: 'accepted' } });
    const url = `${base}/telephony/twilio/warm-transfer/${row.token}/answer`;
    const params = { CallSid: row.consultCallSid!, Digits: '1' };
    const forged = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignature('another-token', url, params) },
      body: new URLSearchParams(params).toString(),
    });
    expect(forged.status).toBe(403);
    // Signed, but about a consultation already over: it joins nothing.
    const late = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignature(AUTH_TOKEN, url, params) },
      body: new URLSearchParams(params).toString(),
    });
    expect(late.status).toBe(200);
    expect(await late.text()).not.toContain('<Conference');
  });
});
