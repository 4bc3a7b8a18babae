import { initializeLogger } from '@livekit/agents';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import pg from 'pg';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audioRunnerOf } from '../../agent/io/audio-link.js';
import { LocalCallRunner } from '../../agent/local-runner.js';
import { rms } from '../../media/pcm.js';
import { SecretBox } from '../../lib/secret-box.js';
import { recoverCarrierDials } from '../../modules/telephony/carrier-dial-recovery.js';
import { createApiContext, type ApiContext, type Tenant } from '../helpers/api.js';
import { until } from '../helpers/until.js';
import { freePort } from '../helpers/free-port.js';
import { localSettings } from '../runtime/call-harness.js';
import { type FakeOpenAI, type OpenAIReply } from '../fakes/vendors/openai.js';
import { INVALID_TO, startFakeTwilioRest, type CreatedCall, type FakeTwilioRest } from '../fakes/twilio-rest.js';
import { loopbackVendorAccess } from '../helpers/vendor-hosts.js';
import { scaledClockInEachTest } from '../helpers/scaled-clock.js';
import { endRunnerAndRemoveData } from '../helpers/runner-teardown.js';
import { messagesOf, startFakeCallModel } from '../fakes/vendors/call-model.js';

// Outbound calls on the embedded default, with no LiveKit anywhere: the number's connection is a carrier account, the
// dialler sends the carrier's "create call" request, and the fake carrier plays its part as Twilio does: signed status
// callbacks to the call's own URL, and once the callee answers, the Media Streams socket of the TwiML it was given,
// with the callee's side spoken by espeak as 8 kHz mu-law.

initializeLogger({ pretty: false, level: 'silent' });

// The calls run on a clock faster than the wall clock (test/helpers/scaled-clock.ts); hooks and caps on the wall clock.
scaledClockInEachTest();

let api: ApiContext;
let llm: FakeOpenAI;
let carrier: FakeTwilioRest;
let acme: Tenant;
let base: string;
let runner: ReturnType<typeof audioRunnerOf> | undefined;
let local: LocalCallRunner | undefined;
let dataDir: string | undefined;
let trunkNumber: string;
const FROM = '+14155550400';
const DESK = '+14155550142';
/** What the model answers in the test that runs; the post-call analysis is answered apart. */
let reply: (messages: Array<{ role: string; content: unknown }>) => OpenAIReply = () => ({ text: 'It is noon.' });

beforeAll(async () => {
  llm = await startFakeCallModel('Told the time.', (body) => reply(messagesOf(body)));
  // The connection's own account; the deployment has none (no TWILIO_* settings).
  carrier = await startFakeTwilioRest({ accountSid: `AC${'fedcba9876543210'.repeat(2)}`, authToken: 'acme-carrier-token-0001' });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'carrier-outbound-'));
  const secrets = new SecretBox(Buffer.alloc(32, 9));
  api = await createApiContext({
    publicUrl: base,
    carrierApiBaseUrl: carrier.url,
    secrets,
    diallerPollIntervalMs: 200,
    quietCarrierDialMs: 2_000,
    callAudioRunner: { open: (id) => runner!.open(id) },
  });
  local = new LocalCallRunner(api.db.prisma, dataDir, { secrets, carrierApiBaseUrl: carrier.url, access: loopbackVendorAccess() });
  runner = audioRunnerOf(local);
  await api.app.listen({ port, host: '127.0.0.1' });
  acme = await api.tenant('Acme');
  const assistant = await api.call(
    acme,
    'POST',
    '/api/assistants',
    localSettings(llm.url, {
      name: 'Caller',
      llm_settings: { welcome_message: 'Hello, this is Acme calling.' },
      recording_settings: { recording_enabled: true, recording_format: 'wav' },
    }),
  );
  expect(assistant.status, JSON.stringify(assistant.body)).toBe(201);
  const connection = await api.call(acme, 'POST', '/api/phone-connections', {
    name: 'Twilio',
    kind: 'twilio',
    account_sid: carrier.accountSid,
    auth_token: carrier.authToken,
  });
  expect(connection.status, JSON.stringify(connection.body)).toBe(201);
  expect(
    (await api.call(acme, 'POST', '/api/phone-numbers', { number: FROM, phone_connection_id: connection.body.data.id, assistant_id: assistant.body.id }))
      .status,
  ).toBe(201);
  const trunk = await api.call(acme, 'POST', '/api/phone-connections', { name: 'Trunk', sip_address: 'sip.carrier.example' });
  trunkNumber = '+14155550499';
  await api.call(acme, 'POST', '/api/phone-numbers', { number: trunkNumber, phone_connection_id: trunk.body.data.id, assistant_id: assistant.body.id });
}, 180_000);
afterAll(() =>
  endRunnerAndRemoveData(local, dataDir, async () => {
    await api.close();
    await Promise.all([llm.close(), carrier.close()]);
  }),
);

async function initiate(to: string, body: Record<string, unknown> = {}) {
  const res = await api.call(acme, 'POST', '/api/telephony/calls/initiate', { to_phone_number: to, from_phone_number: FROM, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { call_sid: string; provider_call_sid: string | null };
}

async function ended(callSid: string, ms = 60_000) {
  return until(async () => {
    const c = await api.db.prisma.call.findUnique({ where: { callSid }, include: { turns: { orderBy: { position: 'asc' } }, recordings: true } });
    return c && !['queued', 'initiated', 'ringing', 'in_progress'].includes(c.status) ? c : null;
  }, ms);
}

/** A dial claimed and marked as sent a few seconds ago by a process that died before its request left. */
async function lostDial(to: string) {
  const number = await api.db.prisma.phoneNumber.findUniqueOrThrow({ where: { number: FROM } });
  return api.db.prisma.call.create({
    data: {
      callSid: `CA${Buffer.from(to).toString('hex').padEnd(32, '0').slice(0, 32)}`,
      organizationId: acme.organizationId,
      assistantId: number.assistantId,
      phoneNumberId: number.id,
      direction: 'outbound',
      transport: 'media_stream',
      status: 'initiated',
      fromNumber: FROM,
      toNumber: to,
      dialRequestedAt: new Date(Date.now() - 3_000),
    },
  });
}

const createdFor = (to: string) => until(async () => carrier.created.filter((c) => c.form.To === to).at(-1) ?? null, 20_000);
const eventsOf = async (callSid: string) =>
  (await api.db.prisma.event.findMany({ orderBy: { createdAt: 'asc' } })).filter((e) => (e.payload as { call_sid?: string }).call_sid === callSid);

describe('an outbound call through a carrier connection', () => {
  it('dials through the carrier, greets once answered, talks, and ends with transcript, recording, answered_by and call.completed', async () => {
    const to = '+14155550410';
    carrier.scriptCallee(to, { says: ['what time is it'], answeredBy: 'human' });
    const { call_sid: callSid, provider_call_sid } = await initiate(to, { detect_voicemail: true });
    expect(provider_call_sid).toBeNull();

    const placed = await createdFor(to);
    // The create request: inline TwiML to our socket with the call's token, a status callback of its own, AMD async.
    expect(placed.form).toMatchObject({
      To: to,
      From: FROM,
      StatusCallback: `${base}/telephony/twilio/status/${callSid}`,
      StatusCallbackMethod: 'POST',
      StatusCallbackEvent: 'initiated ringing answered completed',
      Timeout: '30',
      MachineDetection: 'DetectMessageEnd',
      AsyncAmd: 'true',
      AsyncAmdStatusCallback: `${base}/telephony/twilio/machine-detection/${callSid}`,
    });
    expect(placed.form.Twiml).toMatch(
      new RegExp(
        `^<\\?xml[^>]*\\?><Response><Connect><Stream url="ws://127\\.0\\.0\\.1:\\d+/telephony/media-stream"><Parameter name="token" value="${callSid}\\.\\d+\\.[^"]+"/></Stream></Connect></Response>$`,
      ),
    );

    const call = await ended(callSid);
    await placed.done;
    expect(call).toMatchObject({
      status: 'completed',
      direction: 'outbound',
      transport: 'media_stream',
      endReason: 'customer_hangup',
      providerCallSid: placed.sid,
      answeredBy: 'human',
      toNumber: to,
      fromNumber: FROM,
    });
    expect(call.turns.map((t) => [t.role, t.text])).toEqual(
      expect.arrayContaining([
        ['assistant', 'Hello, this is Acme calling.'],
        ['user', 'what time is it'],
        ['assistant', 'It is noon.'],
      ]),
    );
    expect(call.recordings.map((r) => r.track).sort()).toEqual(['assistant', 'mixed', 'user']);

    // The opening line waited for the answer: the conversation started after the callee picked up, and nothing with
    // any sound in it reached the line before then. (How soon the greeting follows the answer is a figure of the
    // pipeline benchmark, not a test's budget.)
    const leg = placed.leg!;
    expect(call.startedAt!.getTime()).toBeGreaterThanOrEqual(leg.answeredAt - 50);
    const firstSound = leg.heard.find((f) => rms(f.samples) > 500)!;
    expect(firstSound.at).toBeGreaterThanOrEqual(leg.answeredAt);

    // Every callback was signed and accepted; the carrier's word moved the call through ringing.
    expect(placed.callbacks.map((c) => [c.kind, c.params.CallStatus ?? c.params.AnsweredBy, c.answer])).toEqual([
      ['status', 'initiated', 204],
      ['status', 'ringing', 204],
      ['status', 'in-progress', 204],
      ['amd', 'human', 204],
      ['status', 'completed', 204],
    ]);
    const events = await eventsOf(callSid);
    expect(events.map((e) => e.type)).toEqual(['call.started', 'call.completed']);
    expect(events[1]!.payload).toMatchObject({ call_sid: callSid, status: 'completed', answered_by: 'human', end_reason: 'customer_hangup' });
    const read = await api.call(acme, 'GET', `/api/calls/${callSid}`);
    expect(read.body.data ?? read.body).toMatchObject({ provider_call_sid: placed.sid, answered_by: 'human', transport: 'media_stream' });
    // The carrier ended its side itself: nothing was asked of it after the create.
    expect(carrier.updates.filter((u) => u.callSid === placed.sid)).toEqual([]);
  }, 120_000);

  it.for([
    { outcome: 'busy', status: 'busy', reason: 'busy' },
    { outcome: 'no-answer', status: 'no_answer', reason: 'no_answer' },
    { outcome: 'failed', status: 'failed', reason: 'invalid_number' },
  ] as const)(
    'ends a call the callee does not take ($outcome) as $status with reason $reason, and the provider id',
    async ({ outcome, status, reason }, { expect }) => {
      const to = `+1415555042${['busy', 'no-answer', 'failed'].indexOf(outcome)}`;
      carrier.scriptCallee(to, { outcome, ringMs: 300 });
      const { call_sid: callSid } = await initiate(to);
      const call = await ended(callSid, 30_000);
      const placed = await createdFor(to);
      expect(call).toMatchObject({ status, endReason: reason, providerCallSid: placed.sid, startedAt: null });
      expect((await eventsOf(callSid)).map((e) => e.type)).toEqual(status === 'failed' ? ['call.completed', 'call.failed'] : ['call.completed']);
    },
  );

  it("acknowledges a callback once stored while its call's row is held by another transaction, and ends the call once it can", async () => {
    const to = '+14155550425';
    // Long enough for the row to be locked below before the carrier's no-answer comes.
    carrier.scriptCallee(to, { outcome: 'no-answer', ringMs: 6_000 });
    const { call_sid: callSid } = await initiate(to);
    const placed = await createdFor(to);
    await until(async () => (await api.db.prisma.call.findUnique({ where: { callSid } }))?.status === 'ringing', 20_000);
    // A transaction of some other work holds the call's row, as a busy database's slow one does: applying the
    // carrier's no-answer must wait for it, but the carrier's answer must not.
    const holder = new pg.Client({ connectionString: api.db.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM calls WHERE call_sid = $1 FOR NO KEY UPDATE', [callSid]);
      const answered = await until(async () => placed.callbacks.find((c) => c.params.CallStatus === 'no-answer') ?? null, 20_000);
      expect(answered.answer).toBe(204);
      expect((await api.db.prisma.call.findUniqueOrThrow({ where: { callSid } })).status).toBe('ringing');
      expect(await api.db.prisma.carrierReport.count({ where: { call: { callSid } } })).toBe(1);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    expect(await ended(callSid, 60_000)).toMatchObject({ status: 'no_answer', endReason: 'no_answer' });
    await until(async () => (await api.db.prisma.carrierReport.count({ where: { call: { callSid } } })) === 0, 20_000);
  }, 120_000);

  it('ends as customer_hangup when the callee hangs up in the middle of the greeting', async () => {
    const to = '+14155550430';
    carrier.scriptCallee(to, { hangUpMidSpeechMs: 600 });
    const { call_sid: callSid } = await initiate(to);
    const call = await ended(callSid);
    const placed = await createdFor(to);
    await placed.done;
    expect(call).toMatchObject({ status: 'completed', endReason: 'customer_hangup' });
    expect(call.turns[0]).toMatchObject({ role: 'assistant', interrupted: true });
    expect(placed.callbacks.at(-1)!.params.CallStatus).toBe('completed');
  }, 120_000);

  it('ends the carrier call through its REST API when our side ends the call', async () => {
    const to = '+14155550440';
    // The callee says nothing and never hangs up: only our side can end this call, here after one unanswered prompt.
    carrier.scriptCallee(to, { says: [], maxMs: 60_000, stayOnLine: true });
    const assistant = await api.call(
      acme,
      'POST',
      '/api/assistants',
      localSettings(llm.url, { name: 'Short', llm_settings: { welcome_message: 'Hello.' }, idle_timeout: 2, max_idle_messages: 1 }),
    );
    expect(assistant.status, JSON.stringify(assistant.body)).toBe(201);
    const { call_sid: callSid } = await initiate(to, { assistant_id: assistant.body.id });
    const call = await ended(callSid);
    const placed = await createdFor(to);
    await placed.done;
    expect(call).toMatchObject({ status: 'completed', endReason: 'idle_timeout' });
    expect(carrier.updates.filter((u) => u.callSid === placed.sid).map((u) => u.form)).toEqual([{ Status: 'completed' }]);
    expect(placed.status).toBe('completed');
  }, 120_000);

  it("transfers the callee with the connection's own carrier account, and ends the call as transferred", async () => {
    const to = '+14155550445';
    carrier.scriptCallee(to, { says: ['book an appointment'], stayOnLine: true });
    const tool = await api.call(acme, 'POST', '/api/tools', {
      name: 'transfer_to_desk',
      description: 'Puts the caller through to the front desk',
      type: 'transfer_call',
      transfer: { destination: DESK, mode: 'cold', handoff_message: 'Connecting you to our front desk now.' },
    });
    expect(tool.status, JSON.stringify(tool.body)).toBe(201);
    const assistant = await api.call(
      acme,
      'POST',
      '/api/assistants',
      localSettings(llm.url, { name: 'Desk', llm_settings: { welcome_message: 'Hello.' }, assigned_tools: [tool.body.data.id] }),
    );
    reply = (messages) =>
      messages.some((m) => m.role === 'tool') ? { text: 'You are through.' } : { toolCalls: [{ name: 'transfer_to_desk', arguments: '{}' }] };
    try {
      const { call_sid: callSid } = await initiate(to, { assistant_id: assistant.body.id });
      const call = await ended(callSid);
      const placed = await createdFor(to);
      expect(call).toMatchObject({ status: 'completed', endReason: 'transferred' });
      const updates = carrier.updates.filter((u) => u.callSid === placed.sid);
      // The update went to this call with the connection's credentials (the fake accepts no others), and the carrier
      // ended the stream itself: no hang-up followed.
      expect(updates.map((u) => u.form)).toEqual([{ Twiml: expect.stringContaining(`<Dial><Number>${DESK}</Number></Dial>`) }]);
    } finally {
      reply = () => ({ text: 'It is noon.' });
    }
  }, 120_000);

  it('fails a call the carrier refuses with its reason, creating nothing to retry', async () => {
    carrier.failCreates(INVALID_TO);
    try {
      const { call_sid: callSid } = await initiate('+14155550450');
      const call = await ended(callSid, 20_000);
      expect(call).toMatchObject({ status: 'failed', endReason: 'invalid_number', providerCallSid: null });
    } finally {
      carrier.failCreates(null);
    }
  });
});

describe('a dial whose answer from the carrier is lost', () => {
  it('is not dialled again: the callbacks name the call, which goes on to its end', async () => {
    const to = '+14155550460';
    carrier.scriptCallee(to, { says: ['good morning'] });
    carrier.loseCreateAnswers(1);
    const { call_sid: callSid } = await initiate(to);
    const call = await ended(callSid);
    const placed = carrier.created.filter((c) => c.form.To === to);
    expect(placed).toHaveLength(1);
    expect(call).toMatchObject({ status: 'completed', providerCallSid: placed[0]!.sid });
  }, 120_000);

  it('with its callbacks lost too, is found among the carrier calls and adopted, not dialled twice', async () => {
    const to = '+14155550470';
    // Rings long enough for the recovery pass (2 s of quiet here) to look before anything else happens.
    carrier.scriptCallee(to, { outcome: 'no-answer', ringMs: 6_000 });
    carrier.loseCreateAnswers(1);
    carrier.dropCallbacks(true);
    let placed: CreatedCall;
    try {
      const { call_sid: callSid } = await initiate(to);
      placed = await createdFor(to);
      const adopted = await until(async () => (await api.db.prisma.call.findUnique({ where: { callSid } }))?.providerCallSid ?? null, 20_000);
      expect(adopted).toBe(placed.sid);
      carrier.dropCallbacks(false);
      const call = await ended(callSid, 30_000);
      expect(call).toMatchObject({ status: 'no_answer', providerCallSid: placed.sid });
    } finally {
      carrier.dropCallbacks(false);
    }
    expect(carrier.created.filter((c) => c.form.To === to)).toHaveLength(1);
  }, 120_000);

  it('is dialled again, once, when the carrier has no such call (the request never reached it)', async () => {
    const to = '+14155550480';
    carrier.scriptCallee(to, { outcome: 'busy' });
    // A dial claimed and marked as sent by a process that died before the request left: nothing at the carrier.
    const row = await lostDial(to);
    const redialled = await ended(row.callSid, 30_000);
    expect(redialled).toMatchObject({ status: 'busy' });
    expect(carrier.created.filter((c) => c.form.To === to)).toHaveLength(1);
  }, 120_000);
});

describe('a dial still ringing long past its timeout, its callbacks lost', () => {
  it('is a no-answer, not a failure: stopped at the carrier and ended no_answer', async () => {
    const to = '+14155550481';
    carrier.scriptCallee(to, { outcome: 'no-answer', ringMs: 15_000 });
    carrier.dropCallbacks(true);
    try {
      const { call_sid: callSid } = await initiate(to);
      const placed = await createdFor(to);
      await until(async () => (await api.db.prisma.call.findUnique({ where: { callSid } }))?.providerCallSid === placed.sid, 20_000);
      // The recovery pass as it runs once the ringing timeout (30 s) and a minute more have gone by.
      await recoverCarrierDials(
        api.db.prisma,
        { apiBaseUrl: carrier.url, secrets: new SecretBox(Buffer.alloc(32, 9)), ringingTimeoutS: 30 },
        api.app.log,
        Date.now() + 120_000,
      );
      const call = await api.db.prisma.call.findUniqueOrThrow({ where: { callSid } });
      expect({ status: call.status, endReason: call.endReason }).toEqual({ status: 'no_answer', endReason: 'no_answer' });
      expect(carrier.updates.some((u) => u.callSid === placed.sid)).toBe(true);
    } finally {
      carrier.dropCallbacks(false);
    }
  }, 120_000);
});

describe('a lost dial to a number called a moment before', () => {
  it("does not adopt the earlier call's carrier leg, and is dialled itself, once", async () => {
    const to = '+14155550485';
    carrier.scriptCallee(to, { outcome: 'busy' });
    const { call_sid: first } = await initiate(to);
    const earlier = await ended(first, 30_000);
    expect(earlier.status).toBe('busy');
    // A second call to the same number, claimed and sent by a process that died before the request left.
    const lost = await lostDial(to);
    const second = await ended(lost.callSid, 30_000);
    const legs = carrier.created.filter((c) => c.form.To === to);
    expect(legs).toHaveLength(2);
    expect(second.providerCallSid).toBe(legs[1]!.sid);
    expect(second.providerCallSid).not.toBe(earlier.providerCallSid);
  }, 120_000);
});

describe('carrier callbacks and the initiate request', () => {
  it('refuses a status callback with a wrong signature, or for a call nobody has, and changes nothing', async () => {
    const to = '+14155550490';
    carrier.scriptCallee(to, { outcome: 'busy' });
    const { call_sid: callSid } = await initiate(to);
    const call = await ended(callSid, 30_000);
    for (const sid of [callSid, `CA${'0'.repeat(32)}`]) {
      const res = await fetch(`${base}/telephony/twilio/status/${sid}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': 'bm90IGEgc2lnbmF0dXJl' },
        body: new URLSearchParams({ CallSid: call.providerCallSid!, CallStatus: 'completed' }).toString(),
      });
      expect(res.status).toBe(403);
    }
    expect(await api.db.prisma.call.findUniqueOrThrow({ where: { callSid } })).toMatchObject({ status: 'busy', updatedAt: call.updatedAt });
  });

  it('refuses answering-machine detection on a SIP trunk, and a SIP trunk without LiveKit, before queueing anything', async () => {
    const before = await api.db.prisma.call.count();
    const amd = await api.call(acme, 'POST', '/api/telephony/calls/initiate', {
      to_phone_number: '+14155550491',
      from_phone_number: trunkNumber,
      detect_voicemail: true,
    });
    expect(amd.status).toBe(422);
    expect(amd.body.detail[0].loc).toEqual(['body', 'detect_voicemail']);
    const sip = await api.call(acme, 'POST', '/api/telephony/calls/initiate', { to_phone_number: '+14155550491', from_phone_number: trunkNumber });
    expect(sip.status).toBe(503);
    expect(sip.body.message).toContain('LiveKit');
    expect(await api.db.prisma.call.count()).toBe(before);
  });
});

describe('a deployment without a public URL', () => {
  it('answers 503 naming PUBLIC_URL for a carrier number, after checking the request', async () => {
    const other = await createApiContext({ callAudioRunner: { open: () => runner!.open(0) } });
    try {
      const tenant = await other.tenant('NoUrl');
      const assistant = await other.call(tenant, 'POST', '/api/assistants', { name: 'A' });
      const conn = await other.call(tenant, 'POST', '/api/phone-connections', { name: 'T', kind: 'twilio', account_sid: carrier.accountSid, auth_token: 'x' });
      await other.call(tenant, 'POST', '/api/phone-numbers', {
        number: '+14155550492',
        phone_connection_id: conn.body.data.id,
        assistant_id: assistant.body.id,
      });
      const res = await other.call(tenant, 'POST', '/api/telephony/calls/initiate', { to_phone_number: '+14155550493' });
      expect(res.status).toBe(503);
      expect(res.body.message).toContain('PUBLIC_URL');
      expect(await other.db.prisma.call.count()).toBe(0);
    } finally {
      await other.close();
    }
  });
});
