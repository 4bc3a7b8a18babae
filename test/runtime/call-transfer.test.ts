import { initializeLogger } from '@livekit/agents';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { audioRunnerOf } from '../../agent/io/audio-link.js';
import { LocalCallRunner } from '../../agent/local-runner.js';
import { detectDtmf } from '../../media/dtmf.js';
import type { CallAudioRunner } from '../../modules/calls/audio-runner.js';
import { createApiContext, type ApiContext, type Tenant } from '../helpers/api.js';
import { until } from '../helpers/until.js';
import { NOT_IN_PROGRESS, startFakeTwilioRest, type FakeTwilioRest } from '../fakes/twilio-rest.js';
import type { FakeOpenAI, OpenAIReply } from '../fakes/vendors/openai.js';
import { afterAssistantSaid, afterReply, createCall, localSettings, runTimeline, runtimeOrganization, type Cue } from './call-harness.js';
import { createTool } from '../../modules/tools/service.js';
import { TransferConfig } from '../../modules/tools/schemas.js';
import { startHttpServer } from '../fakes/http-server.js';
import { startFakeLiveKit, type FakeLiveKit } from '../fakes/livekit.js';
import { ScriptedCaller } from '../fakes/scripted-caller.js';
import { CallProgress } from './call-progress.js';
import { PushAudioInput } from '../../agent/io/push-audio-input.js';
import { PacedAudioOutput } from '../../agent/io/paced-audio-output.js';
import { LiveKitSipLine, type LiveKitLineOptions } from '../../agent/io/livekit-line.js';
import { CONSULT_PERSON_IDENTITY } from '../../agent/io/livekit-consult.js';
import { consultRoomStandIn, type ScriptedPerson } from '../fakes/consult-room.js';
import { runCall } from '../../agent/call/run-call.js';
import { vendorAccessFromEnv } from '../../agent/providers/speech-providers.js';
import { SecretBox } from '../../lib/secret-box.js';
import crypto from 'node:crypto';
import { loopbackVendorAccess } from '../helpers/vendor-hosts.js';
import { scaledClockInEachTest } from '../helpers/scaled-clock.js';
import { endRunnerAndRemoveData } from '../helpers/runner-teardown.js';
import { messagesOf, startFakeCallModel } from '../fakes/vendors/call-model.js';
import { carrierCall as placeCarrierCall, type CarrierLine, endedCall as endedCarrierCall } from './carrier-caller.js';

// The built-in tools in whole audio calls. The test plays the carrier: it POSTs the signed voice webhook, streams the
// caller's words as 8 kHz mu-law over the Media Streams socket, and hears what the assistant sends back; the carrier's
// REST API is a fake that takes the call's transfer, after which the test stops the stream as the carrier does. The
// model is the OpenAI-compatible fake, which calls the tools. A web call (no phone line) runs through the harness; a
// LiveKit SIP call runs as its job runs it, with the SIP line against the LiveKit fake (no room: no server here).

initializeLogger({ pretty: false, level: 'silent' });

// The calls run on a clock faster than the wall clock (test/helpers/scaled-clock.ts); hooks and caps on the wall clock.
scaledClockInEachTest();
const AUTH_TOKEN = 'carrier-auth-token';
const DESK = '+14155550142';

let api: ApiContext;
let llm: FakeOpenAI;
let carrier: FakeTwilioRest;
let acme: Tenant;
let base: string;
let runner: CallAudioRunner | undefined;
let local: LocalCallRunner | undefined;
let dataDir: string | undefined;
/** What the model answers in the test that runs; the post-call analysis is answered apart. */
let replies: (messages: Array<{ role: string; content: unknown }>) => OpenAIReply = () => ({ text: 'Hello.' });
const tools: Record<string, number> = {};
const numbers: Record<string, string> = {};
/** What the assistant of each carrier call has said so far, by call id, as the call's audio link reports it. */
const assistantSaid = new Map<number, string[]>();
/** A safety cap on a carrier call's stream; a call normally ends long before, by itself or once the caller hangs up. */
const CARRIER_CALL_CAP_MS = 90_000;

beforeAll(async () => {
  llm = await startFakeCallModel('Call handled.', (body) => replies(messagesOf(body)));
  carrier = await startFakeTwilioRest({ authToken: AUTH_TOKEN });
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'call-transfer-'));
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
  local = new LocalCallRunner(api.db.prisma, dataDir, {
    carrier: { accountSid: carrier.accountSid, authToken: AUTH_TOKEN, apiBaseUrl: carrier.url },
    access: loopbackVendorAccess(),
  });
  runner = audioRunnerOf(local);
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  acme = await api.tenant('Acme');
  const conn = await api.call(acme, 'POST', '/api/phone-connections', { name: 'Carrier', sip_address: 'sip.carrier.example' });
  const made = [
    {
      name: 'transfer_to_desk',
      description: 'Puts the caller through to the front desk',
      type: 'transfer_call',
      transfer: { destination: DESK, mode: 'cold', handoff_message: 'Connecting you to our front desk now.' },
    },
    { name: 'end_call', description: '', type: 'end_call' },
    { name: 'press_keys', description: '', type: 'send_dtmf' },
  ];
  for (const tool of made) {
    const res = await api.call(acme, 'POST', '/api/tools', tool);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    tools[tool.name] = res.body.data.id;
  }
  // One managed number per assistant: which tools a call offers follows the number called.
  for (const [number, assigned] of [
    ['+14155550301', ['transfer_to_desk']],
    ['+14155550302', ['press_keys']],
  ] as const) {
    const assistant = await api.call(
      acme,
      'POST',
      '/api/assistants',
      localSettings(llm.url, { name: `Desk ${number}`, assigned_tools: assigned.map((t) => tools[t]) }),
    );
    expect(assistant.status, JSON.stringify(assistant.body)).toBe(201);
    await api.call(acme, 'POST', '/api/phone-numbers', { number, phone_connection_id: conn.body.data.id, assistant_id: assistant.body.id });
    numbers[assigned[0]] = number;
  }
});
afterAll(() =>
  endRunnerAndRemoveData(local, dataDir, async () => {
    await api.close();
    await Promise.all([llm.close(), carrier.close()]);
  }),
);

const line = (): CarrierLine => ({ base, authToken: AUTH_TOKEN, prisma: api.db.prisma, assistantSaid, capMs: CARRIER_CALL_CAP_MS });
const carrierCall = (callSid: string, to: string, words: string, opts: { hangUpAfter?: string } = {}) => placeCarrierCall(line(), callSid, to, words, opts);
const endedCall = (callSid: string) => endedCarrierCall(api.db.prisma, callSid, 30_000);

/** The `call.transfer` event of a call (its `call_sid`, not the carrier's), once recorded (beside the call, so possibly just after it ends). */
const transferEvent = (callSid: string) =>
  until(async () =>
    (await api.db.prisma.event.findMany({ where: { type: 'call.transfer' } }))
      .map((e) => e.payload as Record<string, unknown>)
      .find((p) => p.call_sid === callSid),
  );
const toolMessage = (messages: Array<{ role: string; content: unknown }>) => messages.find((m) => m.role === 'tool');

describe('transfer_call on a carrier’s Media Streams call', () => {
  it('speaks the handoff, updates the call with a Dial to the desk, and stores the call as transferred with the tool call', async () => {
    carrier.addCall('CAtransfer1');
    // The carrier ends our stream once the call is redirected to its <Dial>.
    let stopStream = () => {};
    carrier.onUpdate((u) => {
      if (u.callSid === 'CAtransfer1') setTimeout(() => stopStream(), 0);
    });
    replies = (messages) => (toolMessage(messages) ? { text: 'You are through.' } : { toolCalls: [{ name: 'transfer_to_desk', arguments: '{}' }] });
    const call = await carrierCall('CAtransfer1', numbers.transfer_to_desk!, 'book an appointment');
    stopStream = call.stop;
    await call.closed;

    const updates = carrier.updates.filter((u) => u.callSid === 'CAtransfer1');
    expect(updates).toHaveLength(1);
    expect(updates[0]!.form.Twiml).toContain(`<Dial><Number>${DESK}</Number></Dial>`);
    const stored = await endedCall('CAtransfer1');
    expect(stored).toMatchObject({ status: 'completed', endReason: 'transferred', transport: 'media_stream' });
    expect(stored.turns.map((t) => [t.role, t.text])).toEqual(
      expect.arrayContaining([
        ['user', 'book an appointment'],
        ['assistant', 'Connecting you to our front desk now.'],
      ]),
    );
    const toolCalls = stored.turns.flatMap((t) => (t.toolCalls as unknown[] | null) ?? []);
    expect(toolCalls).toEqual([
      { name: 'transfer_to_desk', arguments: {}, output: { transferred_to: DESK, mode: 'cold' }, is_error: false, at_ms: expect.any(Number) },
    ]);
    // Nobody was left to hear a reply after the transfer: the model was not asked for one.
    expect(llm.chats().filter((c) => JSON.stringify(c.messages).includes('transferred_to'))).toHaveLength(0);
    // The handoff played to the caller before the line went: a second and more of speech came back.
    expect(call.heard.length * 20).toBeGreaterThan(1_000);
    expect(await transferEvent(stored.callSid)).toEqual({
      call_sid: stored.callSid,
      assistant_id: stored.assistantId,
      tool: 'transfer_to_desk',
      mode: 'cold',
      outcome: 'transferred',
      destination: DESK,
      held_ms: null,
      at: expect.any(String),
    });
  }, 120_000);

  it('is still a transfer when the carrier stops the stream before its answer to the update arrives', async () => {
    carrier.addCall('CAtransfer3');
    carrier.delayAnswers('CAtransfer3', 400);
    let stopStream = () => {};
    carrier.onUpdate((u) => {
      if (u.callSid === 'CAtransfer3') stopStream();
    });
    replies = (messages) => (toolMessage(messages) ? { text: 'You are through.' } : { toolCalls: [{ name: 'transfer_to_desk', arguments: '{}' }] });
    const call = await carrierCall('CAtransfer3', numbers.transfer_to_desk!, 'book an appointment');
    stopStream = call.stop;
    await call.closed;
    const stored = await endedCall('CAtransfer3');
    expect(stored).toMatchObject({ status: 'completed', endReason: 'transferred' });
    expect(stored.turns.flatMap((t) => (t.toolCalls as unknown[] | null) ?? [])).toMatchObject([{ name: 'transfer_to_desk', is_error: false }]);
  }, 120_000);

  it('tells the model when the carrier refuses the transfer, and the call goes on', async () => {
    carrier.addCall('CAtransfer2');
    carrier.failUpdates('CAtransfer2', NOT_IN_PROGRESS);
    let told = '';
    replies = (messages) => {
      const result = toolMessage(messages);
      if (result) told = String(result.content);
      return result ? { text: 'Sorry, I could not put you through.' } : { toolCalls: [{ name: 'transfer_to_desk', arguments: '{}' }] };
    };
    // Once the assistant has said the transfer did not go through, the caller hangs up.
    const call = await carrierCall('CAtransfer2', numbers.transfer_to_desk!, 'book an appointment', { hangUpAfter: 'Sorry, I could not put you through.' });
    await call.closed;
    expect(told).toMatch(/did not go through.*Call is not in-progress.*still on the line/);
    const stored = await endedCall('CAtransfer2');
    expect(stored).toMatchObject({ status: 'completed', endReason: 'customer_hangup' });
    expect(stored.turns.map((t) => [t.role, t.text])).toEqual(expect.arrayContaining([['assistant', 'Sorry, I could not put you through.']]));
    const toolCalls = stored.turns.flatMap((t) => (t.toolCalls as Array<{ is_error: boolean; output: unknown }> | null) ?? []);
    expect(toolCalls).toMatchObject([{ name: 'transfer_to_desk', is_error: true }]);
    expect(String(toolCalls[0]!.output)).not.toContain(DESK.slice(1));
    expect(await transferEvent(stored.callSid)).toMatchObject({ mode: 'cold', outcome: 'failed', destination: DESK });
  }, 120_000);
});

describe('send_dtmf on a carrier’s Media Streams call', () => {
  it('plays the keys in-band, and the caller’s side reads the digits back from the audio it hears', async () => {
    replies = (messages) => (toolMessage(messages) ? { text: 'Done.' } : { toolCalls: [{ name: 'press_keys', arguments: '{"digits":"14w#"}' }] });
    // The keys play before the reply that follows them; once it has been spoken, the caller hangs up.
    const call = await carrierCall('CAdtmf1', numbers.press_keys!, 'yes please', { hangUpAfter: 'Done.' });
    const heard = await call.closed;
    const audio = new Int16Array(heard.reduce((n, f) => n + f.length, 0));
    heard.reduce((at, f) => (audio.set(f, at), at + f.length), 0);
    expect(detectDtmf(audio, 8000)).toMatch(/^14#/);
    const stored = await endedCall('CAdtmf1');
    const toolCalls = stored.turns.flatMap((t) => (t.toolCalls as unknown[] | null) ?? []);
    expect(toolCalls).toMatchObject([{ name: 'press_keys', arguments: { digits: '14w#' }, output: { sent: '14w#' }, is_error: false }]);
  }, 120_000);
});

describe('end_call and the built-ins on a web call', () => {
  const secrets = new SecretBox(crypto.randomBytes(32));

  it('ends the call with assistant_ended_call once the goodbye the model was asked for has played', async ({}) => {
    const prisma = api.db.prisma;
    const organizationId = await runtimeOrganization(prisma);
    const tool = await createTool({ db: prisma, secrets, policy: { allowPrivateTargets: true } }, organizationId, {
      name: 'hang_up',
      description: 'Ends the call when the caller is done',
      type: 'end_call',
      enabled: true,
      parameters: { type: 'object', properties: {} },
      http: null,
      transfer: null,
      messages: { on_start: null, on_slow: null, slow_after_ms: 2_000, on_failure: null },
    });
    let asked = '';
    replies = (messages) => {
      const result = toolMessage(messages);
      if (result) asked = String(result.content);
      return result ? { text: 'Goodbye, and thank you for calling.' } : { toolCalls: [{ name: 'hang_up', arguments: '{}' }] };
    };
    const row = await createCall(prisma, localSettings(llm.url, { assigned_tools: [tool.id] }));
    // Nobody hangs up: the assistant ends the call. The caller's words are timed from the start, not from the session's:
    // the line holds their audio until the session reads it, so however late it starts they sit at the same place in
    // what it hears, and the recogniser, which decodes a short phrase differently as its place shifts, hears them alike.
    const run = await runTimeline(prisma, row.id, [{ atMs: 1_000, text: 'thank you' }], { secrets });
    expect(run.result).toMatchObject({ status: 'completed', endReason: 'assistant_ended_call' });
    expect(asked).toMatch(/say a short goodbye/);
    const turns = await prisma.callTurn.findMany({ where: { callId: row.id }, orderBy: { position: 'asc' } });
    const goodbye = turns.find((t) => t.text === 'Goodbye, and thank you for calling.')!;
    expect(goodbye).toMatchObject({ role: 'assistant', interrupted: false });
    expect(goodbye.toolCalls).toMatchObject([{ name: 'hang_up', is_error: false }]);
    // The line closed only after the goodbye's last frame played. Frames are timed from the caller's start, the call's
    // duration from its own, which a busy machine puts later: both on the call's origin.
    const lastFrameMs = run.playedAtMs.at(-1)! - run.callStartMs;
    const stored = await prisma.call.findUniqueOrThrow({ where: { id: row.id } });
    expect(stored.endReason).toBe('assistant_ended_call');
    expect(stored.durationMs!).toBeGreaterThanOrEqual(lastFrameMs - 100);
    expect(goodbye.endMs).toBeLessThanOrEqual(stored.durationMs!);
  }, 120_000);

  it('ends the call once the goodbye the model said along with end_call has played, asking for no other reply', async ({ onTestFinished }) => {
    // Models often say the goodbye and call the tool in one answer: text deltas, then the tool call, finish_reason
    // tool_calls, as OpenAI streams it.
    const chats: Array<{ messages: Array<{ role: string; content: unknown }> }> = [];
    const model = await startHttpServer((req, res) => {
      if (req.method !== 'POST' || !req.path.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ error: { message: 'not found', type: 'invalid_request_error' } }));
      }
      const body = req.json as { messages: Array<{ role: string; content: unknown }> };
      const analysis = String(body.messages[0]?.content ?? '').startsWith('You analyse a finished phone call');
      if (!analysis) chats.push(body);
      const chunk = (delta: Record<string, unknown>, finish: string | null) =>
        `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'fake-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (analysis) {
        res.write(
          chunk({ role: 'assistant', content: JSON.stringify({ summary: 'Said goodbye.', goal_achieved: true, sentiment: 'neutral', fields: {} }) }, null),
        );
        res.write(chunk({}, 'stop'));
      } else {
        res.write(chunk({ role: 'assistant', content: '' }, null));
        for (const word of ['Goodbye ', 'and ', 'take ', 'care.']) res.write(chunk({ content: word }, null));
        res.write(chunk({ tool_calls: [{ index: 0, id: 'call_bye', type: 'function', function: { name: 'bye', arguments: '{}' } }] }, null));
        res.write(chunk({}, 'tool_calls'));
      }
      res.end('data: [DONE]\n\n');
    });
    onTestFinished(() => model.close());
    const prisma = api.db.prisma;
    const organizationId = await runtimeOrganization(prisma);
    const tool = await createTool({ db: prisma, secrets, policy: { allowPrivateTargets: true } }, organizationId, {
      name: 'bye',
      description: '',
      type: 'end_call',
      enabled: true,
      parameters: { type: 'object', properties: {} },
      http: null,
      transfer: null,
      messages: { on_start: null, on_slow: null, slow_after_ms: 2_000, on_failure: null },
    });
    const row = await createCall(prisma, localSettings(model.url, { assigned_tools: [tool.id] }));
    // Nobody hangs up: the assistant ends the call.
    const run = await runTimeline(prisma, row.id, [{ atMs: 1_000, text: 'thank you' }], { secrets });
    expect(run.result).toMatchObject({ status: 'completed', endReason: 'assistant_ended_call' });
    expect(chats).toHaveLength(1);
    const turns = await prisma.callTurn.findMany({ where: { callId: row.id }, orderBy: { position: 'asc' } });
    const goodbye = turns.find((t) => t.text === 'Goodbye and take care.')!;
    expect(goodbye).toMatchObject({ role: 'assistant', interrupted: false });
    const toolCalls = turns.flatMap((t) => (t.toolCalls as unknown[] | null) ?? []);
    expect(toolCalls).toMatchObject([{ name: 'bye', output: 'The call has ended.', is_error: false }]);
    const stored = await prisma.call.findUniqueOrThrow({ where: { id: row.id } });
    // The call lasted until the goodbye's last frame played (on the call's origin, as above).
    expect(stored.durationMs!).toBeGreaterThanOrEqual(run.playedAtMs.at(-1)! - run.callStartMs - 100);
  }, 120_000);

  it('refuses transfer_call and send_dtmf on a web call with a sentence the model relays', async () => {
    const prisma = api.db.prisma;
    const organizationId = await runtimeOrganization(prisma);
    const base = {
      enabled: true,
      parameters: { type: 'object', properties: {} },
      http: null,
      messages: { on_start: null, on_slow: null, slow_after_ms: 2_000, on_failure: null },
    };
    const transfer = await createTool({ db: prisma, secrets, policy: { allowPrivateTargets: true } }, organizationId, {
      ...base,
      name: 'web_transfer',
      description: '',
      type: 'transfer_call',
      transfer: TransferConfig.parse({ destination: DESK, mode: 'cold', handoff_message: null }),
    });
    const keys = await createTool({ db: prisma, secrets, policy: { allowPrivateTargets: true } }, organizationId, {
      ...base,
      name: 'web_keys',
      description: '',
      type: 'send_dtmf',
      transfer: null,
    });
    let told = '';
    let offered = '';
    replies = (messages) => {
      const results = messages.filter((m) => m.role === 'tool');
      if (results.length > 0) told = results.map((m) => String(m.content)).join(' | ');
      return results.length > 0
        ? { text: 'I cannot transfer you from here.' }
        : {
            toolCalls: [
              { name: 'web_transfer', arguments: '{}' },
              { name: 'web_keys', arguments: '{"digits":"1"}' },
            ],
          };
    };
    const chatsBefore = llm.chats().length;
    const row = await createCall(prisma, localSettings(llm.url, { assigned_tools: [transfer.id, keys.id] }));
    // Once the reply relaying the refusals has been spoken, the caller hangs up.
    const run = await runTimeline(prisma, row.id, [{ atMs: 1_000, text: 'book an appointment' }], { hangupWhen: afterReply(1), secrets });
    expect(run.result).toMatchObject({ status: 'completed', endReason: 'customer_hangup' });
    expect(told).toMatch(/cannot be transferred.*web call.* \| Keypad tones cannot be sent on this call/);
    // The built-ins' parameters are ours: none for a transfer, the digits for keys.
    offered = JSON.stringify(llm.chats()[chatsBefore]?.tools);
    expect(offered).toContain('"name":"web_transfer"');
    expect(offered).toContain('"pattern":"^[0-9*#A-Dw]{1,32}$"');
    const turns = await prisma.callTurn.findMany({ where: { callId: row.id }, orderBy: { position: 'asc' } });
    expect(turns.find((t) => t.text === 'I cannot transfer you from here.')?.toolCalls).toMatchObject([
      { name: 'web_transfer', is_error: true },
      { name: 'web_keys', arguments: { digits: '1' }, is_error: true },
    ]);
  }, 120_000);
});

describe('the built-ins on a LiveKit SIP call', () => {
  const secrets = new SecretBox(crypto.randomBytes(32));
  let livekit: FakeLiveKit;
  beforeAll(async () => {
    livekit = await startFakeLiveKit();
    livekit.addRoom('sip-room');
  });
  afterAll(() => livekit.close());

  /** The data folder of one SIP call, as the job has its own: runCall leaves it to its owner, so it goes when the test ends. */
  async function sipDataDir(): Promise<string> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'sip-call-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    return dir;
  }

  /**
   * A call as the LiveKit job runs it, with the SIP caller's line: the room itself is the one part not run here. The
   * caller speaks a second in and hangs up once `hangupWhen` holds; without it, the call ends itself.
   */
  async function sipCall(assigned: number[], words: string, hangupWhen?: Cue, consult?: LiveKitLineOptions['consult']) {
    const prisma = api.db.prisma;
    const row = await createCall(prisma, localSettings(llm.url, { assigned_tools: assigned }));
    const published: string[] = [];
    const line = new LiveKitSipLine({
      url: livekit.url,
      apiKey: livekit.apiKey,
      apiSecret: livekit.apiSecret,
      room: 'sip-room',
      participantIdentity: 'sip_caller',
      dtmf: { publishDtmf: async (_code, digit) => void published.push(digit) },
      consult,
    });
    const input = new PushAudioInput();
    const output = new PacedAudioOutput();
    const caller = new ScriptedCaller(input);
    const progress = new CallProgress();
    await caller.schedule([{ atMs: 1_000, text: words }]);
    const hangup = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    if (hangupWhen) {
      progress.until(hangupWhen).then(
        () => void (timer = setTimeout(() => hangup.abort(), 300)),
        // The call ended first: there is nothing left to hang up.
        () => undefined,
      );
    }
    caller.start();
    try {
      const result = await runCall({
        prisma,
        callId: row.id,
        audioInput: input,
        audioOutput: output,
        signal: hangup.signal,
        dataDir: await sipDataDir(),
        access: vendorAccessFromEnv({ VENDOR_PRIVATE_HOSTS: '127.0.0.1' }),
        secrets,
        line,
        onSession: (session) => progress.attach(session),
      });
      const turns = await prisma.callTurn.findMany({ where: { callId: row.id }, orderBy: { position: 'asc' } });
      return { result, line, turns, published, toolCalls: turns.flatMap((t) => (t.toolCalls as Array<Record<string, unknown>> | null) ?? []) };
    } finally {
      clearTimeout(timer);
      caller.stop();
      input.end();
      output.close();
    }
  }

  async function builtIn(
    name: string,
    type: 'transfer_call' | 'send_dtmf',
    transfer: ({ destination: string; mode: 'cold' | 'warm'; handoff_message: string | null } & Record<string, unknown>) | null = null,
  ) {
    const organizationId = await runtimeOrganization(api.db.prisma);
    const tool = await createTool({ db: api.db.prisma, secrets, policy: { allowPrivateTargets: true } }, organizationId, {
      name,
      description: '',
      type,
      enabled: true,
      parameters: { type: 'object', properties: {} },
      http: null,
      transfer: transfer && TransferConfig.parse(transfer),
      messages: { on_start: null, on_slow: null, slow_after_ms: 2_000, on_failure: null },
    });
    return tool.id;
  }

  it('transfers the SIP caller through LiveKit, cold, and ends the call as transferred', async () => {
    const tool = await builtIn('sip_transfer', 'transfer_call', { destination: 'sip:desk@pbx.example.com', mode: 'cold', handoff_message: null });
    replies = (messages) => (toolMessage(messages) ? { text: 'You are through.' } : { toolCalls: [{ name: 'sip_transfer', arguments: '{}' }] });
    const before = livekit.of('TransferSIPParticipant').length;
    // Nobody hangs up: the transfer ends the call.
    const call = await sipCall([tool], 'book an appointment');
    expect(call.result).toMatchObject({ status: 'completed', endReason: 'transferred' });
    const asked = livekit.of('TransferSIPParticipant').slice(before);
    expect(asked.map((c) => c.body)).toMatchObject([
      { roomName: 'sip-room', participantIdentity: 'sip_caller', transferTo: 'sip:desk@pbx.example.com', playDialtone: true },
    ]);
    expect(call.toolCalls).toMatchObject([{ name: 'sip_transfer', output: { transferred_to: 'sip:desk@pbx.example.com', mode: 'cold' }, is_error: false }]);
  }, 120_000);

  it('tells the model the SIP answer of a refused transfer, and the call goes on; keys go out as DTMF events', async () => {
    livekit.onTransfer('tel:+14155550143', { sipStatus: 486, reason: 'Busy Here' });
    const transfer = await builtIn('sip_busy_desk', 'transfer_call', { destination: '+14155550143', mode: 'cold', handoff_message: null });
    const keys = await builtIn('sip_keys', 'send_dtmf');
    let told = '';
    replies = (messages) => {
      const results = messages.filter((m) => m.role === 'tool');
      if (results.length > 0) told = results.map((m) => String(m.content)).join(' | ');
      return results.length > 0
        ? { text: 'The desk is busy, sorry.' }
        : {
            toolCalls: [
              { name: 'sip_busy_desk', arguments: '{}' },
              { name: 'sip_keys', arguments: '{"digits":"2#"}' },
            ],
          };
    };
    // Once the reply about the busy desk has been spoken, the caller hangs up.
    const call = await sipCall([transfer, keys], 'book an appointment', afterReply(1));
    expect(call.result).toMatchObject({ status: 'completed', endReason: 'customer_hangup' });
    expect(told).toMatch(/the line was busy \(SIP 486 Busy Here\)/);
    expect(call.published).toEqual(['2', '#']);
    // The two ran side by side, as the model asked for them in one reply: recorded in the order they finished.
    const recorded = (call.turns.find((t) => t.text === 'The desk is busy, sorry.')?.toolCalls ?? []) as unknown[];
    expect(recorded).toHaveLength(2);
    expect(recorded).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'sip_busy_desk', is_error: true }),
        expect.objectContaining({ name: 'sip_keys', output: { sent: '2#' }, is_error: false }),
      ]),
    );
  }, 120_000);

  describe('a warm transfer', () => {
    const SIP_DESK = '+14155550144';
    const BRIEFING_PROMPT = 'Brief the desk in one sentence: the caller and their problem.';
    const BRIEFING = 'Jane Doe is calling to book an appointment.';
    const DECLINED = 'Nobody at the desk can take your call right now, but I can still help.';
    const AFTER = 'What else can I do for you?';
    let person: ScriptedPerson = {};
    let standIn: ReturnType<typeof consultRoomStandIn>;
    let tool: number;
    beforeAll(async () => {
      standIn = consultRoomStandIn(livekit, () => ({ ...person, identity: CONSULT_PERSON_IDENTITY }));
      tool = await builtIn('sip_warm_desk', 'transfer_call', {
        destination: SIP_DESK,
        mode: 'warm',
        handoff_message: 'Let me check whether the desk is free.',
        briefing_prompt: BRIEFING_PROMPT,
        hold_audio: 'tone',
        ring_timeout_s: 5,
        on_decline_message: DECLINED,
      });
    });
    const consult = () => ({
      trunk: { livekitTrunkId: 'ST_desk', sipAddress: '', sipTransport: 'udp', username: null, password: null },
      from: '+14155550311',
      joinRoom: standIn.join,
    });
    beforeEach(() => {
      replies = (messages) => {
        if (String(messages[0]?.content ?? '') === BRIEFING_PROMPT) return { text: BRIEFING };
        return toolMessage(messages) ? { text: AFTER } : { toolCalls: [{ name: 'sip_warm_desk', arguments: '{}' }] };
      };
    });

    it('briefs the person in the consultation room in the call’s voice and, on 1, moves them into the caller’s room: the call ends as transferred', async () => {
      person = { answer: '1' };
      const before = livekit.calls.length;
      const call = await sipCall([tool], 'book an appointment', undefined, consult());
      expect(call.result).toMatchObject({ status: 'completed', endReason: 'transferred' });
      expect(call.toolCalls).toEqual([
        expect.objectContaining({
          name: 'sip_warm_desk',
          is_error: false,
          output: { transferred_to: SIP_DESK, mode: 'warm', outcome: 'accepted', held_ms: expect.any(Number), briefing: BRIEFING },
        }),
      ]);
      expect(call.line.handedOver).toBe(true);
      const asked = livekit.calls.slice(before);
      expect(asked.map((c) => c.method)).toEqual(['CreateRoom', 'CreateSIPParticipant', 'MoveParticipant', 'DeleteRoom']);
      expect(asked[1]!.body).toMatchObject({ sipTrunkId: 'ST_desk', sipCallTo: SIP_DESK, sipNumber: '+14155550311', ringingTimeout: '5s' });
      expect(asked[2]!.body).toMatchObject({ identity: CONSULT_PERSON_IDENTITY, destinationRoom: 'sip-room' });
      expect(livekit.participants('sip-room')).toContain(CONSULT_PERSON_IDENTITY);
      // The call's own text-to-speech said the briefing and the question: seconds of audio, all of it played.
      const session = standIn.sessions.at(-1)!;
      expect(session.heardMs).toBeGreaterThan(1_500);
      expect(session.left).toBe(true);
    }, 150_000);

    it('takes the caller back when the person presses 2: the caller is told, and the conversation goes on', async () => {
      person = { answer: '2' };
      const before = livekit.calls.length;
      const call = await sipCall([tool], 'book an appointment', afterAssistantSaid(AFTER), consult());
      expect(call.result.endReason).not.toBe('transferred');
      expect(call.line.handedOver).toBe(false);
      expect(livekit.calls.slice(before).map((c) => c.method)).toEqual(['CreateRoom', 'CreateSIPParticipant', 'DeleteRoom']);
      const said = call.turns.filter((t) => t.role === 'assistant').map((t) => t.text);
      expect(said.indexOf(DECLINED)).toBeGreaterThan(-1);
      expect(said.indexOf(AFTER)).toBeGreaterThan(said.indexOf(DECLINED));
      expect(call.toolCalls).toEqual([
        expect.objectContaining({
          name: 'sip_warm_desk',
          is_error: false,
          output: expect.objectContaining({ mode: 'warm', outcome: 'declined', briefing: BRIEFING, caller_was_told: DECLINED, held_ms: expect.any(Number) }),
        }),
      ]);
    }, 150_000);

    it('takes the caller back when nobody answers (SIP 480)', async () => {
      livekit.onDial('+14155550145', { sipStatus: 480, reason: 'Temporarily Unavailable' });
      const absent = await builtIn('sip_warm_absent', 'transfer_call', {
        destination: '+14155550145',
        mode: 'warm',
        handoff_message: null,
        on_decline_message: DECLINED,
      });
      replies = (messages) => (toolMessage(messages) ? { text: AFTER } : { toolCalls: [{ name: 'sip_warm_absent', arguments: '{}' }] });
      const call = await sipCall([absent], 'book an appointment', afterAssistantSaid(AFTER), consult());
      expect(call.toolCalls).toEqual([expect.objectContaining({ output: expect.objectContaining({ outcome: 'no_answer', caller_was_told: DECLINED }) })]);
      expect(call.turns.some((t) => t.role === 'assistant' && t.text === DECLINED)).toBe(true);
    }, 150_000);
  });
});
