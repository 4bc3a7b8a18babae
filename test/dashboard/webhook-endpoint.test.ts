import { describe, expect } from 'vitest';
import { apiTest as it } from '../helpers/fixtures.js';
import { BrowserSession } from '../helpers/browser-session.js';
import { addPerson } from '../helpers/people.js';
import type { ApiContext, Tenant } from '../helpers/api.js';

// A webhook endpoint's page: its settings changed as the API's PATCH changes them, and its signing secret rotated as
// the API rotates it, the new secret shown once.

async function endpointOf(api: ApiContext, tenant: Tenant) {
  const person = await addPerson(api, tenant.organizationId, 'member');
  const browser = new BrowserSession(api.app);
  await browser.signIn(person.email, person.password);
  const created = (
    await api.call(tenant, 'POST', '/api/organization/webhooks', { url: 'https://hooks.example.com/in', event_types: ['call.completed'], description: 'CRM' })
  ).body.data;
  await browser.get(`/webhooks/${created.id}`);
  return { browser, id: created.id as number, secret: created.secret as string };
}

describe('a webhook endpoint’s page', () => {
  it('changes its URL, events and description, after showing the API’s refusals at their fields', async ({ api, tenant }) => {
    const { browser, id } = await endpointOf(api, tenant);
    const page = await browser.get(`/webhooks/${id}`);
    expect(page.body).toMatch(/id="f-url"[^>]*value="https:\/\/hooks.example.com\/in"/);
    expect(page.body).toMatch(/value="call.completed" checked/);

    const badUrl = await browser.post(`/webhooks/${id}`, { url: 'ftp://hooks.example.com', event_types: 'call.completed' });
    expect(badUrl.status).toBe(422);
    expect(badUrl.body).toMatch(/id="f-url-error">/);
    const noKinds = await browser.post(`/webhooks/${id}`, { url: 'https://hooks.example.com/in' });
    expect(noKinds.status).toBe(422);
    expect(noKinds.body).toMatch(/id="f-event_types-error">/);
    // The policy the API applies: a loopback target is refused unless the operator allows it.
    const loopback = await browser.post(`/webhooks/${id}`, { url: 'http://127.0.0.1/hook', event_types: 'call.completed' });
    expect(loopback.status).toBe(422);
    expect(loopback.body).toMatch(/id="f-url-error">/);

    const saved = await browser.post(`/webhooks/${id}`, { url: 'https://hooks.example.com/v2', event_types: '*', description: '' });
    expect(saved.status).toBe(200);
    expect(saved.body).toContain('Saved.');
    const stored = (await api.call(tenant, 'GET', `/api/organization/webhooks/${id}`)).body.data;
    expect(stored).toMatchObject({ url: 'https://hooks.example.com/v2', event_types: ['*'], description: null });
  });

  it('rotates the signing secret, showing the new one once while the old one signs through the overlap', async ({ api, tenant }) => {
    const { browser, id, secret } = await endpointOf(api, tenant);
    const refused = await browser.post(`/webhooks/${id}/rotate-secret`, { overlap_seconds: '999999999' });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatch(/id="f-overlap_seconds-error">/);

    const rotated = await browser.post(`/webhooks/${id}/rotate-secret`, { overlap_seconds: '3600' });
    expect(rotated.status).toBe(200);
    const shown = /<code id="new-secret">(whsec_[^<]+)<\/code>/.exec(rotated.body)?.[1];
    expect(shown).toBeDefined();
    expect(shown).not.toBe(secret);
    expect(rotated.body).toContain('the previous one signs too until');
    const stored = (await api.call(tenant, 'GET', `/api/organization/webhooks/${id}`)).body.data;
    expect(shown!.startsWith(stored.secret_hint.replace(/…$/, ''))).toBe(true);
    const expires = Date.parse(stored.previous_secret_expires_at);
    expect(expires - Date.now()).toBeGreaterThan(3500_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(3600_000);
    expect((await browser.get(`/webhooks/${id}`)).body).not.toContain(shown!);
  });

  it('answers 404 for another organisation’s endpoint, to a change and a rotation alike, and changes nothing', async ({ api, tenant }) => {
    const { id } = await endpointOf(api, tenant);
    const other = await api.tenant('Other hooks');
    const outsider = await addPerson(api, other.organizationId, 'owner');
    const browser = new BrowserSession(api.app);
    await browser.signIn(outsider.email, outsider.password);
    expect((await browser.post(`/webhooks/${id}`, { url: 'https://evil.example.com', event_types: '*' })).status).toBe(404);
    expect((await browser.post(`/webhooks/${id}/rotate-secret`, { overlap_seconds: '0' })).status).toBe(404);
    const stored = (await api.call(tenant, 'GET', `/api/organization/webhooks/${id}`)).body.data;
    expect(stored).toMatchObject({ url: 'https://hooks.example.com/in', previous_secret_expires_at: null });
  });
});
