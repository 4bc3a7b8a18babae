import { initializeLogger } from '@livekit/agents';
import { mkdtemp } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { audioRunnerOf } from '../../agent/io/audio-link.js';
import { LocalCallRunner } from '../../agent/local-runner.js';
import { twilioSignature } from '../../modules/telephony/carriers/twilio/signature.js';
import { decodeMulaw, encodeMulaw } from '../../media/mulaw.js';
import { resampleLinear, rms } from '../../media/pcm.js';
import type { CallAudioRunner } from '../../modules/calls/audio-runner.js';
import { createApiContext, type ApiContext, type Tenant } from '../helpers/api.js';
import { localSettings } from '../runtime/call-harness.js';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/vendors/openai.js';
import { speechSamples } from '../fakes/scripted-caller.js';
import { until } from '../helpers/until.js';
import { loopbackVendorAccess } from '../helpers/vendor-hosts.js';
import { scaledClockInEachTest } from '../helpers/scaled-clock.js';
import { endRunnerAndRemoveData } from '../helpers/runner-teardown.js';

// The test plays the carrier: it POSTs the signed voice webhook for a managed number, connects the Media Streams socket
// the TwiML names, and streams a spoken question as 20 ms frames of 8 kHz mu-law on the wall clock.

initializeLogger({ pretty: false, level: 'silent' });

// The calls run on a clock faster than the wall clock (test/helpers/scaled-clock.ts); hooks and caps on the wall clock.
scaledClockInEachTest();
const AUTH_TOKEN = 'carrier-auth-token';

let api: ApiContext;
let llm: FakeOpenAI;
let acme: Tenant;
let base: string;
let runner: CallAudioRunner | undefined;
let local: LocalCallRunner | undefined;
let dataDir: string | undefined;
/** What the worker says of its load (the real reading is the process's own: agent/load/process-load.ts). */
let atCapacity = false;

beforeAll(async () => {
  llm = await startFakeOpenAI(() => ({ text: 'It is noon.' }));
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'media-stream-'));
  api = await createApiContext({ twilioAuthToken: AUTH_TOKEN, callAudioRunner: { open: (id) => runner!.open(id), atCapacity: () => atCapacity } });
  local = new LocalCallRunner(api.db.prisma, dataDir, { access: loopbackVendorAccess() });
  runner = audioRunnerOf(local);
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  acme = await api.tenant('Acme');
  const assistant = await api.call(acme, 'POST', '/api/assistants', localSettings(llm.url, { name: 'Phone desk' }));
  const conn = await api.call(acme, 'POST', '/api/phone-connections', { name: 'Carrier', sip_address: 'sip.carrier.example' });
  await api.call(acme, 'POST', '/api/phone-numbers', { number: '+14155550300', phone_connection_id: conn.body.data.id, assistant_id: assistant.body.id });
});
afterAll(() =>
  endRunnerAndRemoveData(local, dataDir, async () => {
    await api.close();
    await llm.close();
  }),
);

async function voiceWebhook(params: Record<string, string>, signature = twilioSignature(AUTH_TOKEN, `${base}/telephony/twilio/voice`, params)) {
  const res = await fetch(`${base}/telephony/twilio/voice`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
    body: new URLSearchParams(params).toString(),
  });
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
}

describe('a phone call through the Media Streams endpoint', () => {
  it('answers the caller on the managed number, sends the reply as audio, and ends with transcript, contact and call.completed', async () => {
    const hook = await voiceWebhook({ To: '+14155550300', From: '+14155550199', CallSid: 'CAcarrier1' });
    expect(hook.status).toBe(200);
    expect(hook.type).toContain('text/xml');
    const streamUrl = /<Stream url="([^"]+)">/.exec(hook.body)![1]!;
    const token = /<Parameter name="token" value="([^"]+)"\/>/.exec(hook.body)![1]!;
    expect(streamUrl).toBe(`${base.replace('http', 'ws')}/telephony/media-stream`);

    const ws = new WebSocket(streamUrl);
    await new Promise((r) => ws.once('open', r));
    const received: Int16Array[] = [];
    ws.on('message', (data: Buffer) => {
      const msg = JSON.parse(data.toString()) as { event: string; streamSid: string; media?: { payload: string } };
      if (msg.event === 'media') {
        expect(msg.streamSid).toBe('MZstream1');
        received.push(decodeMulaw(Buffer.from(msg.media!.payload, 'base64')));
      }
    });
    const closed = new Promise((r) => ws.once('close', r));
    ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
    ws.send(
      JSON.stringify({
        event: 'start',
        streamSid: 'MZstream1',
        start: {
          streamSid: 'MZstream1',
          callSid: 'CAcarrier1',
          customParameters: { token },
          mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
        },
      }),
    );

    // One second of silence, the question, then silence until the assistant's reply has come back whole (it started,
    // and nothing has come for a second): 20 ms frames on the wall clock, as a carrier sends them.
    const speech = encodeMulaw(resampleLinear(await speechSamples('what time is it'), 16_000, 8000));
    const audio = new Uint8Array(8000 + speech.length);
    audio.set(encodeMulaw(new Int16Array(8000)));
    audio.set(speech, 8000);
    const silentFrame = encodeMulaw(new Int16Array(160));
    let lastFrameAt = Date.now();
    ws.on('message', () => (lastFrameAt = Date.now()));
    const loudMs = () => received.filter((f) => rms(f) > 500).length * 20;
    const started = Date.now();
    const send = async (chunk: number, frame: Uint8Array) => {
      const due = started + chunk * 20;
      if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
      ws.send(
        JSON.stringify({
          event: 'media',
          streamSid: 'MZstream1',
          media: { track: 'inbound', chunk: String(chunk), timestamp: String(chunk * 20), payload: Buffer.from(frame).toString('base64') },
        }),
      );
    };
    let chunk = 0;
    for (let i = 0; i < audio.length; i += 160) await send(chunk++, audio.subarray(i, i + 160));
    // A cap for a call that never answers; the assertions below then say what is missing.
    for (const cap = chunk + 3_000; chunk < cap && !(loudMs() > 300 && Date.now() - lastFrameAt > 1_000); chunk++) await send(chunk, silentFrame);
    ws.send(JSON.stringify({ event: 'stop', streamSid: 'MZstream1', stop: { callSid: 'CAcarrier1' } }));
    await closed;

    // The reply came back as 20 ms mu-law frames carrying speech.
    expect(received.every((f) => f.length === 160)).toBe(true);
    const replyMs = received.length * 20;
    expect(replyMs).toBeGreaterThan(500);
    const loud = received.filter((f) => rms(f) > 500).length;
    expect(loud * 20).toBeGreaterThan(300);

    const call = await until(async () => {
      const c = await api.db.prisma.call.findFirst({ where: { providerCallSid: 'CAcarrier1' }, include: { turns: { orderBy: { position: 'asc' } } } });
      return c && (c.status === 'completed' || c.status === 'failed') ? c : null;
    }, 20_000);
    expect(call).toMatchObject({
      status: 'completed',
      direction: 'inbound',
      transport: 'media_stream',
      fromNumber: '+14155550199',
      toNumber: '+14155550300',
      endReason: 'customer_hangup',
    });
    expect(call.turns.map((t) => [t.role, t.text])).toEqual(
      expect.arrayContaining([
        ['user', 'what time is it'],
        ['assistant', 'It is noon.'],
      ]),
    );
    const contact = await api.db.prisma.contact.findFirstOrThrow({ where: { organizationId: acme.organizationId, phoneNumber: '+14155550199' } });
    expect(call.contactId).toBe(contact.id);
    const events = (await api.db.prisma.event.findMany()).filter((e) => (e.payload as { call_sid?: string }).call_sid === call.callSid).map((e) => e.type);
    expect(events).toEqual(['call.started', 'call.completed']);
  }, 120_000);

  it('refuses a webhook whose signature does not match, and a number nobody manages, creating no call', async () => {
    const before = await api.db.prisma.call.count();
    const forged = await voiceWebhook({ To: '+14155550300', From: '+14155550198', CallSid: 'CAforged' }, 'bm90IGEgc2lnbmF0dXJl');
    expect(forged.status).toBe(403);
    const unknown = await voiceWebhook({ To: '+14155550399', From: '+14155550198', CallSid: 'CAunknown' });
    expect(unknown.body).toContain('<Hangup/>');
    expect(await api.db.prisma.call.count()).toBe(before);
  });

  it('answers busy, creating no call, while the worker is at capacity, and takes the next call once it is not', async () => {
    const before = await api.db.prisma.call.count();
    atCapacity = true;
    try {
      const refused = await voiceWebhook({ To: '+14155550300', From: '+14155550197', CallSid: 'CAbusy' });
      expect(refused.status).toBe(200);
      expect(refused.body).toContain('<Reject reason="busy"/>');
      expect(await api.db.prisma.call.count()).toBe(before);
    } finally {
      atCapacity = false;
    }
    const taken = await voiceWebhook({ To: '+14155550300', From: '+14155550197', CallSid: 'CAafterbusy' });
    expect(taken.body).toContain('<Stream');
  });

  it('closes a media socket that starts with a forged token', async () => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/telephony/media-stream`);
    await new Promise((r) => ws.once('open', r));
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    ws.send(JSON.stringify({ event: 'start', streamSid: 'MZx', start: { streamSid: 'MZx', customParameters: { token: 'CA1.9999999999.forged' } } }));
    expect(await closed).toBe(1008);
  });
});
