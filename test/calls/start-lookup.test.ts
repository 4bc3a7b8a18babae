import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lookUpCall, type StartLookupConfig } from '../../modules/calls/start-lookup.js';
import type { CallRow } from '../../modules/calls/lifecycle.js';
import { type FakeServer, startHttpServer } from '../fakes/http-server.js';
import { signatureValid } from '../fakes/webhook-receiver.js';

// The call-start lookup's request and the reading of its answer, against a team's server on 127.0.0.1: signed as
// docs/webhooks.md tells receivers to check, bounded by its deadline, and every answer that cannot be used recorded as
// a failure the call goes on past.

const SECRET = `whsec_${crypto.randomBytes(32).toString('base64')}`;
const CALL = {
  id: 7,
  callSid: 'CA0123456789abcdef0123456789abcdef',
  direction: 'inbound',
  transport: 'sip',
  fromNumber: '+12025550143',
  toNumber: '+12025550100',
  assistantId: 3,
  campaignId: null,
  contactId: 11,
  variables: { plan: 'gold' },
} as unknown as CallRow;
const CONTACT = { first_name: 'Ada', last_name: 'Lovelace', phone_number: '+12025550143', custom_fields: { tier: 'vip' } };

type Answer = { status: number; body?: string; delayMs?: number };
let answer: Answer = { status: 200, body: '{}' };
let server: FakeServer;

beforeAll(async () => {
  server = await startHttpServer(async (_req, res) => {
    const { status, body, delayMs } = answer;
    if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body ?? '');
  });
});
afterAll(() => server.close());

const config = (over: Partial<StartLookupConfig> = {}): StartLookupConfig => ({ url: `${server.url}/lookup`, secret: SECRET, timeoutMs: 5000, ...over });
const lookUp = (over: Partial<StartLookupConfig> = {}, allowPrivateTargets = true) => lookUpCall(config(over), CALL, CONTACT, { allowPrivateTargets });

describe('the call-start lookup', () => {
  it('posts the call, its contact and variables, signed with the secret as a webhook is', async () => {
    answer = { status: 200, body: '{}' };
    const before = server.requests.length;
    await lookUp();
    const request = server.requests[before]!;
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/json');
    const id = request.headers['webhook-id'] as string;
    const timestamp = request.headers['webhook-timestamp'] as string;
    const signatures = (request.headers['webhook-signature'] as string).split(' ');
    expect(signatures.some((s) => signatureValid(SECRET, { id, timestamp, body: request.body }, s))).toBe(true);
    expect(signatures.some((s) => signatureValid(`whsec_${crypto.randomBytes(32).toString('base64')}`, { id, timestamp, body: request.body }, s))).toBe(false);
    expect(request.json).toMatchObject({
      type: 'call.starting',
      data: {
        call_sid: CALL.callSid,
        direction: 'inbound',
        transport: 'sip',
        from_number: '+12025550143',
        to_number: '+12025550100',
        assistant_id: 3,
        contact_id: 11,
        contact: CONTACT,
        variables: { plan: 'gold' },
      },
    });
  });

  it('answers the variables as text, and the welcome and prompt it overrides', async () => {
    answer = {
      status: 200,
      body: JSON.stringify({
        variables: { first_name: 'Ada', balance: 12.5, vip: true, gone: null },
        welcome_message: 'Hi {{var.first_name}}',
        system_prompt: 'Be brief.',
        crm_id: 'x',
      }),
    };
    const found = await lookUp();
    expect(found.variables).toEqual({ first_name: 'Ada', balance: '12.5', vip: 'true' });
    expect(found).toMatchObject({ welcomeMessage: 'Hi {{var.first_name}}', systemPrompt: 'Be brief.' });
    expect(found.result).toMatchObject({
      status: 'applied',
      http_status: 200,
      error: null,
      variables: ['first_name', 'balance', 'vip'],
      overrides: ['welcome_message', 'system_prompt'],
    });
  });

  it('takes an empty answer (204) as nothing to change', async () => {
    answer = { status: 204 };
    const found = await lookUp();
    expect(found).toEqual({ result: expect.objectContaining({ status: 'applied', http_status: 204, variables: [], overrides: [] }), variables: {} });
  });

  it('gives up at its deadline, recorded as timed out', async () => {
    answer = { status: 200, body: '{"variables":{"first_name":"Late"}}', delayMs: 3000 };
    const found = await lookUp({ timeoutMs: 150 });
    expect(found.variables).toEqual({});
    expect(found.result).toMatchObject({ status: 'timed_out', http_status: null, error: 'timed out after 150 ms' });
  });

  it.each([
    [{ status: 500, body: '{"variables":{"a":"b"}}' }, 'HTTP 500'],
    [{ status: 200, body: '<html>oops</html>' }, 'answer is not JSON'],
    [{ status: 200, body: '{"variables":{"first_name":{"nested":true}}}' }, 'answer not understood: variables.first_name: '],
    [{ status: 200, body: '["a"]' }, 'answer not understood: '],
  ])('records an answer it cannot use as failed, and sets nothing: %o', async (reply, error) => {
    answer = reply;
    const found = await lookUp();
    expect(found.variables).toEqual({});
    expect(found.welcomeMessage).toBeUndefined();
    expect(found.result.status).toBe('failed');
    expect(found.result.error).toContain(error);
  });

  it('refuses a private address unless the service allows private targets, sending nothing', async () => {
    const before = server.requests.length;
    const found = await lookUp({}, false);
    expect(found.result).toMatchObject({ status: 'failed', http_status: null });
    expect(found.result.error).toBe('target address is not public');
    expect(server.requests.length).toBe(before);
  });
});
