import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicUrlProblem } from '../../modules/telephony/public-url-check.js';
import { createApiContext, type ApiContext, type Tenant } from '../helpers/api.js';

// A carrier connection needs an https PUBLIC_URL: its media stream address is made from it, and Twilio refuses ws://
// (error 31922) once the call is placed. The connection says so wherever it is shown, and start-up says so in the log.

const ACCOUNT_SID = `AC${'0123456789abcdef'.repeat(2)}`;
const carrier = { name: 'Twilio', kind: 'twilio', account_sid: ACCOUNT_SID, auth_token: 'carrier-auth-token-0001' };
const trunk = { name: 'Trunk', sip_address: 'sip.carrier.example' };

describe('a carrier connection behind an http PUBLIC_URL', () => {
  let api: ApiContext;
  let tenant: Tenant;
  beforeAll(async () => {
    api = await createApiContext({ publicUrl: 'http://voice.example.com' });
    tenant = await api.tenant('Acme');
  });
  afterAll(() => api?.close());

  it('carries a warning on create, get, list and update; a SIP trunk carries none', async () => {
    const created = await api.call(tenant, 'POST', '/api/phone-connections', carrier);
    expect(created.status).toBe(201);
    expect(created.body.data.warnings).toEqual([expect.stringMatching(/PUBLIC_URL is not https.*ws:\/\/.*31922/)]);
    const id = created.body.data.id as number;
    expect((await api.call(tenant, 'GET', `/api/phone-connections/${id}`)).body.data.warnings).toHaveLength(1);
    expect((await api.call(tenant, 'PATCH', `/api/phone-connections/${id}`, { name: 'Renamed' })).body.data.warnings).toHaveLength(1);
    const sip = await api.call(tenant, 'POST', '/api/phone-connections', trunk);
    expect(sip.body.data.warnings).toEqual([]);
    const listed = (await api.call(tenant, 'GET', '/api/phone-connections')).body.data as Array<{ kind: string; warnings: string[] }>;
    expect(listed.map((c) => [c.kind, c.warnings.length])).toEqual(
      expect.arrayContaining([
        ['twilio', 1],
        ['sip', 0],
      ]),
    );
  });
});

describe('a carrier connection behind an https PUBLIC_URL', () => {
  let api: ApiContext;
  let tenant: Tenant;
  beforeAll(async () => {
    api = await createApiContext({ publicUrl: 'https://voice.example.com' });
    tenant = await api.tenant('Acme');
  });
  afterAll(() => api?.close());

  it('carries no warning', async () => {
    expect((await api.call(tenant, 'POST', '/api/phone-connections', carrier)).body.data.warnings).toEqual([]);
  });
});

describe('the start-up check of PUBLIC_URL', () => {
  it('names an http base as the problem, and has nothing to say of https or of none', () => {
    expect(publicUrlProblem('http://voice.example.com')).toMatch(/not https/);
    expect(publicUrlProblem('https://voice.example.com')).toBeUndefined();
    expect(publicUrlProblem(undefined)).toBeUndefined();
  });
});
