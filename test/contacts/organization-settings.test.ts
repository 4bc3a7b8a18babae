import { describe, expect } from 'vitest';
import { apiTest } from '../helpers/fixtures.js';

const it = apiTest.extend('tenant', { scope: 'file' }, async ({ api }) => api.tenant('Settings Org'));

describe('organisation settings', () => {
  it('reads the default phone region, US unless set', async ({ api, tenant }) => {
    const res = await api.call(tenant, 'GET', '/api/organization/settings');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      message: 'Organization settings retrieved',
      data: {
        organization_id: tenant.organizationId,
        name: 'Settings Org',
        default_phone_region: 'US',
        max_concurrent_calls: 10,
        active_calls: 0,
        privacy_mode: 'full',
        recording_retention_days: null,
        transcript_retention_days: null,
      },
    });
  });

  it('sets the limit of simultaneous calls, from 1 to 10,000', async ({ api, tenant }) => {
    const set = await api.call(tenant, 'PATCH', '/api/organization/settings', { max_concurrent_calls: 25 });
    expect(set.body.data).toMatchObject({ max_concurrent_calls: 25, default_phone_region: 'US' });
    for (const bad of [0, 10_001, 2.5, '3']) {
      const refused = await api.call(tenant, 'PATCH', '/api/organization/settings', { max_concurrent_calls: bad });
      expect(refused.status).toBe(422);
      expect(refused.body.detail[0].loc).toEqual(['body', 'max_concurrent_calls']);
    }
    expect((await api.call(tenant, 'GET', '/api/organization/settings')).body.data.max_concurrent_calls).toBe(25);
  });

  it('sets the region, upper-cased, for this organisation only', async ({ api, tenant }) => {
    const res = await api.call(tenant, 'PATCH', '/api/organization/settings', { default_phone_region: ' de ' });
    expect(res.status).toBe(200);
    expect(res.body.data.default_phone_region).toBe('DE');
    const other = await api.tenant();
    expect((await api.call(other, 'GET', '/api/organization/settings')).body.data.default_phone_region).toBe('US');
    const contact = await api.call(tenant, 'POST', '/api/contacts', { phone_number: '030 901820' });
    expect(contact.status).toBe(201);
    expect(contact.body.data.phone_number).toBe('+4930901820');
  });

  it('refuses a code that is not a region with a numbering plan, and unknown fields', async ({ api, tenant }) => {
    for (const region of ['XX', 'USA', '', 'u1']) {
      const res = await api.call(tenant, 'PATCH', '/api/organization/settings', { default_phone_region: region });
      expect(res.status, region).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['body', 'default_phone_region']);
    }
    const extra = await api.call(tenant, 'PATCH', '/api/organization/settings', { name: 'Renamed' });
    expect(extra.body.detail).toEqual([{ loc: ['body', 'name'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }]);
  });

  it('leaves the session-only organisation routes answering 403', async ({ api, tenant }) => {
    expect((await api.call(tenant, 'GET', '/api/organization/api-keys')).status).toBe(403);
    expect((await api.call(tenant, 'GET', '/api/organization/members')).status).toBe(403);
  });

  it('sets the privacy mode to redacted, metadata only and back, and refuses a mode it does not have', async ({ api, tenant }) => {
    const redacted = await api.call(tenant, 'PATCH', '/api/organization/settings', { privacy_mode: 'redacted' });
    expect(redacted.body.data.privacy_mode).toBe('redacted');
    const set = await api.call(tenant, 'PATCH', '/api/organization/settings', { privacy_mode: 'metadata_only' });
    expect(set.body.data.privacy_mode).toBe('metadata_only');
    const refused = await api.call(tenant, 'PATCH', '/api/organization/settings', { privacy_mode: 'anonymised' });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(['body', 'privacy_mode']);
    expect((await api.call(tenant, 'GET', '/api/organization/settings')).body.data.privacy_mode).toBe('metadata_only');
    expect((await api.call(tenant, 'PATCH', '/api/organization/settings', { privacy_mode: 'full' })).body.data.privacy_mode).toBe('full');
  });

  it("keeps an assistant's own privacy mode, null by default, and refuses one it does not have", async ({ api, tenant }) => {
    const created = await api.call(tenant, 'POST', '/api/assistants', { name: 'Private' });
    expect(created.body.privacy_mode).toBeNull();
    const id = created.body.id as number;
    const set = await api.call(tenant, 'PATCH', `/api/assistants/${id}`, { privacy_mode: 'redacted' });
    expect(set.body.privacy_mode).toBe('redacted');
    const refused = await api.call(tenant, 'PATCH', `/api/assistants/${id}`, { privacy_mode: 'everything' });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(['body', 'privacy_mode']);
    expect((await api.call(tenant, 'GET', `/api/assistants/${id}`)).body.privacy_mode).toBe('redacted');
  });
});
