import { describe, expect } from 'vitest';
import { apiTest as it } from '../helpers/fixtures.js';
import { BrowserSession } from '../helpers/browser-session.js';
import { addPerson } from '../helpers/people.js';
import type { ApiContext, Tenant } from '../helpers/api.js';

// A campaign's settings changed in its page as PUT /api/campaigns/{id} changes them, and contacts added by id as the
// API's add-by-ids: the same service, the same refusals, at their fields.

async function draftOf(api: ApiContext, tenant: Tenant) {
  const person = await addPerson(api, tenant.organizationId, 'owner');
  const browser = new BrowserSession(api.app);
  await browser.signIn(person.email, person.password);
  const assistant = (await api.call(tenant, 'POST', '/api/assistants', { name: 'Caller' })).body.id;
  const connection = (await api.call(tenant, 'POST', '/api/phone-connections', { name: 'Trunk', sip_address: 'sip.example.com' })).body.data.id;
  await api.call(tenant, 'POST', '/api/phone-numbers', { number: '+14155550121', phone_connection_id: connection, assistant_id: assistant });
  const campaign = (
    await api.call(tenant, 'POST', '/api/campaigns', {
      name: 'Renewals',
      assistant_id: assistant,
      from_numbers: ['+14155550121'],
      pacing: { calls_per_minute: 12 },
    })
  ).body.data;
  return { browser, assistant, campaign };
}

const putOf = (assistant: number, changes: Record<string, string>) => ({
  name: 'Renewals',
  assistant_id: String(assistant),
  from_numbers: '+14155550121',
  'window_mon_start[]': '09:00',
  'window_mon_end[]': '17:00',
  ...changes,
});

describe('campaign settings in the dashboard', () => {
  it('prefills a draft’s form from the campaign, shows the API’s 422 at its field, and saves the whole object as PUT does', async ({ api, tenant }) => {
    const { browser, assistant, campaign } = await draftOf(api, tenant);
    const form = await browser.get(`/campaigns/${campaign.id}/edit`);
    expect(form.status).toBe(200);
    expect(form.body).toMatch(/id="f-name"[^>]*value="Renewals"/);
    expect(form.body).toMatch(/id="f-pacing-calls_per_minute"[^>]*value="12"/);

    const refused = await browser.post(`/campaigns/${campaign.id}`, putOf(assistant, { 'pacing.calls_per_minute': '0' }));
    expect(refused.status).toBe(422);
    expect(refused.body).toMatch(/id="f-pacing-calls_per_minute-error">/);
    const unknownNumber = await browser.post(`/campaigns/${campaign.id}`, putOf(assistant, { from_numbers: '+14155550199' }));
    expect(unknownNumber.status).toBe(422);
    expect(unknownNumber.body).toMatch(/id="f-from_numbers-14155550199-error">Not one of this organisation’s numbers/);

    // The whole object: calls_per_minute left empty takes its default (30), as an omitted setting does in PUT.
    const saved = await browser.post(`/campaigns/${campaign.id}`, putOf(assistant, { name: 'Spring renewals', 'retry.busy.attempts': '5' }));
    expect(saved.status).toBe(302);
    expect((await browser.get(saved.location!)).body).toContain('Settings saved.');
    const stored = (await api.call(tenant, 'GET', `/api/campaigns/${campaign.id}`)).body.data;
    expect(stored).toMatchObject({ name: 'Spring renewals', retry: { busy: { attempts: 5, delay_minutes: 15 } }, pacing: { calls_per_minute: 30 } });
  });

  it('lets a running campaign change its pacing but answers 409 at each other setting changed; a paused one takes any change', async ({ api, tenant }) => {
    const { browser, assistant, campaign } = await draftOf(api, tenant);
    await api.db.prisma.campaign.update({ where: { id: campaign.id }, data: { state: 'running', startedAt: new Date() } });
    const form = await browser.get(`/campaigns/${campaign.id}/edit`);
    expect(form.body).toContain('only its schedule and pacing can change now');

    const frozen = await browser.post(
      `/campaigns/${campaign.id}`,
      putOf(assistant, { name: 'Other name', 'pacing.calls_per_minute': '12', 'retry.busy.attempts': '5' }),
    );
    expect(frozen.status).toBe(409);
    expect(frozen.body).toMatch(/id="f-name-error">Cannot change while the campaign runs/);
    expect(frozen.body).toMatch(/id="retry-error" role="alert">Cannot change while the campaign runs/);
    expect(frozen.body).not.toMatch(/id="f-pacing-calls_per_minute-error"/);

    const paced = await browser.post(`/campaigns/${campaign.id}`, putOf(assistant, { 'pacing.calls_per_minute': '6' }));
    expect(paced.status).toBe(302);
    expect((await api.call(tenant, 'GET', `/api/campaigns/${campaign.id}`)).body.data.pacing.calls_per_minute).toBe(6);

    await api.db.prisma.campaign.update({ where: { id: campaign.id }, data: { state: 'paused' } });
    const renamed = await browser.post(`/campaigns/${campaign.id}`, putOf(assistant, { name: 'Paused renewals' }));
    expect(renamed.status).toBe(302);
    expect((await api.call(tenant, 'GET', `/api/campaigns/${campaign.id}`)).body.data.name).toBe('Paused renewals');
  });

  it('adds contacts by id, refuses an id that is not one at its place in the list, and reports ids the organisation has no contact with', async ({
    api,
    tenant,
  }) => {
    const { browser, campaign } = await draftOf(api, tenant);
    const ada = (await api.call(tenant, 'POST', '/api/contacts', { first_name: 'Ada', phone_number: '+14155550177' })).body.data.id;
    const noPhone = (await api.call(tenant, 'POST', '/api/contacts', { first_name: 'Mail only', email: 'mail@example.com' })).body.data.id;
    const elsewhere = await api.tenant('Elsewhere contacts');
    const theirs = (await api.call(elsewhere, 'POST', '/api/contacts', { first_name: 'Theirs', phone_number: '+14155550178' })).body.data.id;
    await browser.get(`/campaigns/${campaign.id}`);

    const refused = await browser.post(`/campaigns/${campaign.id}/contacts/ids`, { contact_ids: `${ada}, seven` });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatch(/id="c-ids-error">Id 2 in the list: /);

    const added = await browser.post(`/campaigns/${campaign.id}/contacts/ids`, { contact_ids: `${ada}\n${noPhone} ${theirs}` });
    expect(added.status).toBe(200);
    expect(added.body).toContain(`Added 1 contacts (0 already in, 1 without a phone number). No contact has the ids ${theirs}.`);
    expect(await api.db.prisma.campaignContact.count({ where: { campaignId: campaign.id } })).toBe(1);
  });

  it('answers 404 for another organisation’s campaign, its form and its by-id form alike, and changes nothing', async ({ api, tenant }) => {
    const { assistant, campaign } = await draftOf(api, tenant);
    const other = await api.tenant('Other campaigns');
    const outsider = await addPerson(api, other.organizationId, 'owner');
    const browser = new BrowserSession(api.app);
    await browser.signIn(outsider.email, outsider.password);
    expect((await browser.get(`/campaigns/${campaign.id}/edit`)).status).toBe(404);
    expect((await browser.post(`/campaigns/${campaign.id}`, putOf(assistant, { name: 'Taken' }))).status).toBe(404);
    expect((await browser.post(`/campaigns/${campaign.id}/contacts/ids`, { contact_ids: '1' })).status).toBe(404);
    expect((await api.call(tenant, 'GET', `/api/campaigns/${campaign.id}`)).body.data.name).toBe('Renewals');
  });
});
