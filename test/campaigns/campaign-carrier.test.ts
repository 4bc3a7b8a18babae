import { initializeLogger } from '@livekit/agents';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audioRunnerOf } from '../../agent/io/audio-link.js';
import { LocalCallRunner } from '../../agent/local-runner.js';
import { SecretBox } from '../../lib/secret-box.js';
import { createApiContext, type ApiContext, type Tenant } from '../helpers/api.js';
import { until } from '../helpers/until.js';
import { freePort } from '../helpers/free-port.js';
import { localSettings } from '../runtime/call-harness.js';
import type { FakeOpenAI } from '../fakes/vendors/openai.js';
import { startFakeTwilioRest, type FakeTwilioRest } from '../fakes/twilio-rest.js';
import { ALWAYS } from './campaign-world.js';
import { loopbackVendorAccess } from '../helpers/vendor-hosts.js';
import { scaledClockInEachTest } from '../helpers/scaled-clock.js';
import { endRunnerAndRemoveData } from '../helpers/runner-teardown.js';
import { startFakeCallModel } from '../fakes/vendors/call-model.js';

// A campaign run whole on the embedded default: the API's dispatcher queues its calls, the dialler places them through
// the carrier fake, the callees answer (one a person, one a machine), are busy or do not answer, and the campaign
// completes with each outcome counted and its events sent. No LiveKit anywhere.

initializeLogger({ pretty: false, level: 'silent' });

// The calls run on a clock faster than the wall clock (test/helpers/scaled-clock.ts); hooks and caps on the wall clock.
scaledClockInEachTest();

let api: ApiContext;
let llm: FakeOpenAI;
let carrier: FakeTwilioRest;
let acme: Tenant;
let runner: ReturnType<typeof audioRunnerOf> | undefined;
let local: LocalCallRunner | undefined;
let dataDir: string | undefined;
const FROM = '+14155550700';

beforeAll(async () => {
  llm = await startFakeCallModel('Called.', () => ({ text: 'It is noon.' }));
  carrier = await startFakeTwilioRest({ authToken: 'campaign-carrier-token' });
  const port = await freePort();
  const secrets = new SecretBox(Buffer.alloc(32, 4));
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'campaign-carrier-'));
  api = await createApiContext({
    publicUrl: `http://127.0.0.1:${port}`,
    carrierApiBaseUrl: carrier.url,
    secrets,
    diallerPollIntervalMs: 200,
    campaignTickMs: 200,
    callAudioRunner: { open: (id) => runner!.open(id) },
  });
  local = new LocalCallRunner(api.db.prisma, dataDir, { secrets, carrierApiBaseUrl: carrier.url, access: loopbackVendorAccess() });
  runner = audioRunnerOf(local);
  await api.app.listen({ port, host: '127.0.0.1' });
  acme = await api.tenant('Acme');
}, 180_000);
afterAll(() =>
  endRunnerAndRemoveData(local, dataDir, async () => {
    await api.close();
    await Promise.all([llm.close(), carrier.close()]);
  }),
);

describe('a campaign through a carrier connection', () => {
  it('calls every contact once, counts answered, voicemail, busy and no answer, and completes with its events', async () => {
    const assistant = await api.call(
      acme,
      'POST',
      '/api/assistants',
      localSettings(llm.url, { name: 'Caller', llm_settings: { welcome_message: 'Hello {{var.first}}, this is Acme.' } }),
    );
    const connection = await api.call(acme, 'POST', '/api/phone-connections', {
      name: 'Twilio',
      kind: 'twilio',
      account_sid: carrier.accountSid,
      auth_token: carrier.authToken,
    });
    await api.call(acme, 'POST', '/api/phone-numbers', { number: FROM, phone_connection_id: connection.body.data.id });
    const callees = {
      '+14155550710': { says: ['what time is it'] },
      '+14155550711': { answeredBy: 'machine_end_beep' },
      '+14155550712': { outcome: 'busy' as const },
      '+14155550713': { outcome: 'no-answer' as const, ringMs: 500 },
    };
    for (const [number, script] of Object.entries(callees)) carrier.scriptCallee(number, script);
    const campaign = await api.call(acme, 'POST', '/api/campaigns', {
      name: 'Renewals',
      assistant_id: assistant.body.id,
      from_numbers: [FROM],
      schedule: ALWAYS,
      retry: { busy: { attempts: 0 }, no_answer: { attempts: 0 }, voicemail: { attempts: 0 }, failed: { attempts: 0 } },
      variables: { first: 'there' },
    });
    expect(campaign.status, JSON.stringify(campaign.body)).toBe(201);
    const id = campaign.body.data.id as number;
    const csv = `first_name,phone_number,var.first\n${Object.keys(callees)
      .map((n, i) => `Person ${i},${n},P${i}`)
      .join('\n')}\n`;
    const imported = await api.app.inject({
      method: 'POST',
      url: `/api/campaigns/${id}/contacts/import`,
      headers: { authorization: `Bearer ${acme.key}`, 'content-type': 'text/csv' },
      payload: csv,
    });
    expect(JSON.parse(imported.body).data).toMatchObject({ created: 4, added: 4 });
    expect((await api.call(acme, 'POST', `/api/campaigns/${id}/start`)).body.data.state).toBe('running');

    const done = await until(async () => {
      const res = await api.call(acme, 'GET', `/api/campaigns/${id}`);
      return res.body.data.state === 'completed' ? res.body.data : null;
    }, 90_000);
    expect(done.progress).toMatchObject({
      contacts: { total: 4, done: 2, exhausted: 2 },
      outcomes: { answered: 1, voicemail: 1, busy: 1, no_answer: 1, failed: 0 },
      attempts: 4,
      calls_in_flight: 0,
    });
    // Each callee was called once, from the campaign's number, asking the carrier for answering-machine detection.
    expect(carrier.created.map((c) => c.form.To).sort()).toEqual(Object.keys(callees).sort());
    expect(carrier.created.every((c) => c.form.From === FROM && c.form.MachineDetection === 'DetectMessageEnd')).toBe(true);
    const calls = await api.db.prisma.call.findMany({ where: { campaignId: id }, include: { turns: { orderBy: { position: 'asc' } } } });
    const person = calls.find((c) => c.toNumber === '+14155550710')!;
    expect(person).toMatchObject({ status: 'completed', answeredBy: 'human', campaignAttempt: 1, variables: { first: 'P0' } });
    expect(person.turns[0]).toMatchObject({ role: 'assistant', text: 'Hello P0, this is Acme.' });
    expect(calls.find((c) => c.toNumber === '+14155550711')).toMatchObject({ answeredBy: 'machine_end_beep' });
    const events = (
      await api.db.prisma.event.findMany({ where: { organizationId: acme.organizationId, type: { startsWith: 'campaign.' } }, orderBy: { createdAt: 'asc' } })
    ).map((e) => e.type);
    expect(events).toEqual(['campaign.started', 'campaign.completed']);
  }, 120_000);

  it.for([
    { action: 'leave_message', reason: 'voicemail_message_left', to: '+14155550720' },
    { action: 'hang_up', reason: 'voicemail', to: '+14155550721' },
  ] as const)(
    'on a machine, $action ends the call as $reason, speaking the message only when one is to be left',
    { timeout: 90_000 },
    async ({ action, reason, to }, { expect }) => {
      const assistant = await api.call(
        acme,
        'POST',
        '/api/assistants',
        localSettings(llm.url, { name: `Caller ${action}`, llm_settings: { welcome_message: 'Hello, this is Acme calling about your renewal.' } }),
      );
      const connection = await api.call(acme, 'POST', '/api/phone-connections', {
        name: `Twilio ${action}`,
        kind: 'twilio',
        account_sid: carrier.accountSid,
        auth_token: carrier.authToken,
      });
      const from = action === 'hang_up' ? '+14155550731' : '+14155550730';
      await api.call(acme, 'POST', '/api/phone-numbers', { number: from, phone_connection_id: connection.body.data.id });
      // An answering machine: it never hangs up by itself, and the carrier hears its beep.
      carrier.scriptCallee(to, { answeredBy: 'machine_end_beep', stayOnLine: true, maxMs: 40_000 });
      const contact = await api.call(acme, 'POST', '/api/contacts', { first_name: 'Vera', phone_number: to });
      const campaign = await api.call(acme, 'POST', '/api/campaigns', {
        name: `Voicemail ${action}`,
        assistant_id: assistant.body.id,
        from_numbers: [from],
        schedule: ALWAYS,
        retry: { voicemail: { attempts: 0 } },
        voicemail: { action, message: action === 'leave_message' ? 'Sorry we missed you, {{contact.first_name}}. Please call us back.' : null },
      });
      expect(campaign.status, JSON.stringify(campaign.body)).toBe(201);
      const id = campaign.body.data.id as number;
      await api.call(acme, 'POST', `/api/campaigns/${id}/contacts`, { contact_ids: [contact.body.data.id] });
      await api.call(acme, 'POST', `/api/campaigns/${id}/start`);
      const done = await until(async () => {
        const res = await api.call(acme, 'GET', `/api/campaigns/${id}`);
        return res.body.data.state === 'completed' ? res.body.data : null;
      }, 60_000);
      expect(done.progress.outcomes).toMatchObject({ voicemail: 1, answered: 0 });
      const call = await api.db.prisma.call.findFirstOrThrow({ where: { campaignId: id }, include: { turns: { orderBy: { position: 'asc' } } } });
      expect(call).toMatchObject({ status: 'completed', endReason: reason, answeredBy: 'machine_end_beep' });
      const placed = carrier.created.find((c) => c.form.To === to)!;
      await placed.done;
      // Our side ended the call at the carrier: the machine never hangs up.
      expect(carrier.updates.filter((u) => u.callSid === placed.sid).map((u) => u.form)).toEqual([{ Status: 'completed' }]);
      const assistantSaid = call.turns.filter((t) => t.role === 'assistant').map((t) => t.text);
      if (action === 'leave_message') expect(assistantSaid).toContain('Sorry we missed you, Vera. Please call us back.');
      else expect(assistantSaid.join(' ')).not.toContain('call us back');
    },
  );
});
