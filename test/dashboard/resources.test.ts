import { describe, expect } from 'vitest';
import { apiTest } from '../helpers/fixtures.js';
import { BrowserSession } from '../helpers/browser-session.js';
import { addPerson } from '../helpers/people.js';
import type { ApiContext, Tenant } from '../helpers/api.js';
import { until } from '../helpers/until.js';
import { startDocumentProcessing } from '../../modules/knowledge/processing.js';

// The product's resources through the dashboard's forms: the same services and refusals as the API.

const it = apiTest;

async function ownerOf(api: ApiContext, tenant: Tenant): Promise<BrowserSession> {
  const person = await addPerson(api, tenant.organizationId, 'owner');
  const browser = new BrowserSession(api.app);
  await browser.signIn(person.email, person.password);
  return browser;
}

describe('webhooks in the dashboard', () => {
  it('adds an endpoint showing its secret once, refuses a bad URL at its field, disables and deletes it; another organisation’s is not found', async ({
    api,
    tenant,
  }) => {
    const browser = await ownerOf(api, tenant);
    await browser.get('/webhooks');
    const bad = await browser.post('/webhooks', { url: 'ftp://example.com', event_types: 'call.completed' });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatch(/id="f-url-error">/);

    const created = await browser.post('/webhooks', { url: 'https://hooks.example.com/in', event_types: 'call.completed', description: 'CRM' });
    expect(created.status).toBe(201);
    const secret = /<code id="new-secret">(whsec_[^<]+)<\/code>/.exec(created.body)?.[1];
    expect(secret).toBeDefined();
    const endpoint = await api.db.prisma.webhookEndpoint.findFirstOrThrow({
      where: { organizationId: tenant.organizationId, url: 'https://hooks.example.com/in' },
    });
    expect((await browser.get('/webhooks')).body).not.toContain(secret!);

    const page = await browser.get(`/webhooks/${endpoint.id}`);
    expect(page.body).toContain('Nothing was sent to this endpoint yet.');
    expect((await browser.post(`/webhooks/${endpoint.id}/disable`)).body).toContain('Disabled: deliveries wait');
    expect((await api.db.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).enabled).toBe(false);

    const elsewhere = await api.tenant('Elsewhere hooks');
    const theirs = (await api.call(elsewhere, 'POST', '/api/organization/webhooks', { url: 'https://hooks.example.com/theirs', event_types: ['*'] })).body.data
      .id;
    expect((await browser.get(`/webhooks/${theirs}`)).status).toBe(404);
    expect((await browser.post(`/webhooks/${theirs}/delete`)).status).toBe(404);

    expect((await browser.post(`/webhooks/${endpoint.id}/delete`)).location).toBe('/webhooks');
    expect(await api.db.prisma.webhookEndpoint.count({ where: { id: endpoint.id } })).toBe(0);
  });
});

describe('knowledge documents in the dashboard', () => {
  it('adds Markdown and a file, shows their processing, and edits the Markdown, which is processed again', async ({ api, tenant }) => {
    const processing = startDocumentProcessing(api.db.prisma, { changes: api.db.changes, pollIntervalMs: 200 });
    try {
      const browser = await ownerOf(api, tenant);
      await browser.get('/documents');
      const refused = await browser.post('/documents', { text: '# Hours' });
      expect(refused.status).toBe(422);
      expect(refused.body).toContain('name');

      const added = await browser.post('/documents', { name: 'Opening hours', text: '# Hours\n\nWe open at nine.' });
      expect(added.status).toBe(302);
      const path = added.location!;
      await until(async () => (await browser.get(path)).body.includes('>ready<'), { timeoutMs: 15_000, message: 'the document is processed' });
      const page = await browser.get(path);
      expect(page.body).toContain('We open at nine.');

      const saved = await browser.post(`${path}/content`, { content: '# Hours\n\nWe open at ten.' });
      expect(saved.body).toContain('Saved: the document is processed again.');
      await until(async () => (await browser.get(path)).body.includes('We open at ten.'), { timeoutMs: 15_000, message: 'the new content is stored' });

      // A file arrives as the page's script sends it: base64 with its name.
      const file = await browser.post('/documents', { content_base64: Buffer.from('name,phone\nAda,+1415').toString('base64'), filename: 'people.csv' });
      expect(file.status).toBe(302);
      const doc = await api.db.prisma.document.findFirstOrThrow({ where: { organizationId: tenant.organizationId, filename: 'people.csv' } });
      expect(doc.name).toBe('people.csv');
      expect((await browser.get('/documents')).body).toContain('people.csv');
    } finally {
      await processing.stop();
    }
  });
});

describe('campaigns in the dashboard', () => {
  it('creates a draft from the form after showing the API’s refusals at their fields, and refuses to start it where its numbers cannot be dialled, saying why', async ({
    api,
    tenant,
  }) => {
    const browser = await ownerOf(api, tenant);
    const assistant = (await api.call(tenant, 'POST', '/api/assistants', { name: 'Caller' })).body.id;
    const connection = (await api.call(tenant, 'POST', '/api/phone-connections', { name: 'Trunk', sip_address: 'sip.example.com' })).body.data.id;
    await api.call(tenant, 'POST', '/api/phone-numbers', { number: '+14155550111', phone_connection_id: connection, assistant_id: assistant });
    await browser.get('/campaigns/new');
    const refused = await browser.post('/campaigns', {
      name: 'Renewals',
      assistant_id: String(assistant),
      from_numbers: '+14155550111',
      'pacing.max_concurrent_calls': '0',
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatch(/id="f-schedule-windows-error">Give at least one day a range of hours\./);
    expect(refused.body).toMatch(/id="f-pacing-max_concurrent_calls-error">At least 1\./);

    const created = await browser.post('/campaigns', {
      name: 'Renewals',
      assistant_id: String(assistant),
      from_numbers: '+14155550111',
      'window_mon_start[]': '09:00',
      'window_mon_end[]': '17:00',
    });
    expect(created.status).toBe(302);
    const page = await browser.get(created.location!);
    expect(page.body).toContain('draft');
    // The campaign's page names its assistant and says its calling hours in words.
    expect(page.body).toMatch(new RegExp(`<a href="/assistants/${assistant}">Caller</a>`));
    expect(page.body).toContain('<dt>Calling hours</dt><dd>Mon 09:00-17:00, in each contact’s own time zone (UTC when it is not known)</dd>');
    const added = await browser.post(`${created.location}/contacts`, {
      csv: 'first_name,phone_number,email,var.plan\nAda,+14155550177,,gold\nNo phone,,nophone@example.com,silver\n',
    });
    expect(added.body).toContain('Added 1 contacts (0 already in, 1 without a phone number)');
    expect(added.body).toMatch(/<dt>total<\/dt><dd>1<\/dd>/);
    await api.call(tenant, 'POST', '/api/contacts', { first_name: 'Grace', phone_number: '+14155550178' });
    const matching = await browser.post(`${created.location}/contacts/matching`, { q: '' });
    expect(matching.body).toContain('Added 1 contacts (1 already in).');
    const start = await browser.post(`${created.location}/start`);
    expect(start.status).toBe(409);
    // As the API answers: this deployment has no LiveKit for its SIP trunk number.
    expect(start.body).toMatch(/need a LiveKit server/);
    expect((await browser.get('/campaigns')).body).toContain('Renewals');
  });
});

describe('tools and playbooks in the dashboard', () => {
  it('creates a tool after showing the API’s refusal at its field, edits it, and a playbook that uses it, whose test run is queued', async ({
    api,
    tenant,
  }) => {
    const browser = await ownerOf(api, tenant);
    await browser.get('/tools/new');
    const refused = await browser.post('/tools', { name: 'lookup order', type: 'http', 'http.url': 'https://api.example.com/orders' });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatch(/id="f-name-error">/);

    const created = await browser.post('/tools', {
      name: 'lookup_order',
      type: 'http',
      description: 'Finds an order',
      'http.url': 'https://api.example.com/orders/{{args.number}}',
      'param_name[]': 'number',
      'param_type[]': 'string',
    });
    expect(created.status).toBe(302);
    const toolPath = created.location!;
    const toolId = Number(toolPath.split('/').pop());
    const edited = await browser.post(toolPath, {
      name: 'lookup_order',
      type: 'http',
      description: 'Finds an order by number',
      'http.url': 'https://api.example.com/orders/{{args.number}}',
      'param_name[]': 'number',
      'param_type[]': 'string',
    });
    expect((await browser.get(edited.location!)).body).toContain('Saved.');
    expect((await api.call(tenant, 'GET', `/api/tools/${toolId}`)).body.data.description).toBe('Finds an order by number');

    const playbook = await browser.post('/playbooks', {
      name: 'Order status',
      goal: 'Say where the order is',
      instructions: 'Ask for the number',
      tool_ids: String(toolId),
    });
    expect(playbook.status).toBe(302);
    const playbookId = Number(playbook.location!.split('/').pop());
    const assistant = (await api.call(tenant, 'POST', '/api/assistants', { name: 'Orders', playbook_ids: [playbookId] })).body.id;
    expect(assistant).toBeGreaterThan(0);
    const run = await browser.post(`/playbooks/${playbookId}/test-runs`, { script: 'Where is my order?\nIt is 1234.' });
    expect(run.status).toBe(201);
    expect(run.body).toContain('Test run queued');
    const queued = await api.db.prisma.testRun.findFirstOrThrow({ where: { organizationId: tenant.organizationId, playbookId } });
    expect(queued.status).toBe('queued');
  });
});

describe('contacts in the dashboard', () => {
  it('imports a CSV file through the API’s import, reporting each refused line, and finds the contacts by search', async ({ api, tenant }) => {
    const browser = await ownerOf(api, tenant);
    await browser.get('/contacts');
    const csv = 'first_name,last_name,phone_number,email\nAda,Lovelace,+14155550123,ada@example.com\nBad,Row,not a phone,\n';
    const imported = await browser.post('/contacts/import', { csv });
    expect(imported.status).toBe(200);
    expect(imported.body).toContain('Imported 2 rows: 1 created, 0 updated, 1 invalid, 0 in conflict.');
    expect(imported.body.replace(/\s+/g, ' ')).toMatch(/<td>3<\/td> ?<td>invalid<\/td> ?<td>[a-z_.0-9]*phone_number/);

    const found = await browser.get('/contacts?q=lovelace');
    expect(found.body).toContain('+14155550123');
    expect((await browser.get('/contacts?q=nobody')).body).toContain('No contacts match this search.');

    const ada = await api.db.prisma.contact.findFirstOrThrow({ where: { organizationId: tenant.organizationId, email: 'ada@example.com' } });
    const page = await browser.get(`/contacts/${ada.id}`);
    expect(page.body).toMatch(/<input id="f-first_name" name="first_name" type="text" value="Ada"/);
    const refused = await browser.post(`/contacts/${ada.id}`, {
      first_name: 'Ada',
      last_name: 'Lovelace',
      phone_number: '+14155550123',
      email: 'not an email',
    });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatch(/id="f-email-error">/);
    const saved = await browser.post(`/contacts/${ada.id}`, { first_name: 'Ada', last_name: 'King', phone_number: '+14155550123', email: 'ada@example.com' });
    expect(saved.body).toContain('Saved.');
    expect((await api.call(tenant, 'GET', `/api/contacts/${ada.id}`)).body.data.last_name).toBe('King');

    const broken = await browser.post('/contacts/import', { csv: 'first_name,first_name\nA,B\n' });
    expect(broken.status).toBe(422);
    expect(broken.body).toContain('appears twice in the header');
  });

  it('adds one contact by hand after showing the API’s refusal at its field, and a phone number already taken is refused too', async ({ api, tenant }) => {
    const browser = await ownerOf(api, tenant);
    expect((await browser.get('/contacts')).body).toContain('href="/contacts/new"');
    expect((await browser.get('/contacts/new')).status).toBe(200);
    const refused = await browser.post('/contacts/new', { first_name: 'Margaret', phone_number: 'not a phone' });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatch(/id="f-phone_number-error">/);
    // What was typed is kept.
    expect(refused.body).toMatch(/<input id="f-first_name" name="first_name" type="text" value="Margaret"/);
    expect(await api.db.prisma.contact.count({ where: { organizationId: tenant.organizationId, firstName: 'Margaret' } })).toBe(0);

    const added = await browser.post('/contacts/new', { first_name: 'Margaret', last_name: 'Hamilton', phone_number: '+14155550931' });
    expect(added.status).toBe(302);
    const id = Number(added.location!.split('?')[0]!.split('/').pop());
    expect((await browser.get(added.location!)).body).toContain('Contact added.');
    expect((await api.call(tenant, 'GET', `/api/contacts/${id}`)).body.data).toMatchObject({ first_name: 'Margaret', phone_number: '+14155550931' });

    const again = await browser.post('/contacts/new', { first_name: 'Other', phone_number: '+14155550931' });
    expect(again.status).toBe(422);
    expect(again.body).toMatch(/id="f-phone_number-error">A contact with this phone_number already exists/);
    expect(await api.db.prisma.contact.count({ where: { organizationId: tenant.organizationId, phoneNumber: '+14155550931' } })).toBe(1);
  });
});

describe('custom properties in the dashboard', () => {
  it('creates a select property once its options are given, changes its label but not its key, and imports values into it', async ({ api, tenant }) => {
    const browser = await ownerOf(api, tenant);
    await browser.get('/contacts/properties/new');
    const refused = await browser.post('/contacts/properties', { key: 'plan', label: 'Plan', type: 'select' });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatch(/id="f-options-error">Give the choices, one a line\./);

    const created = await browser.post('/contacts/properties', { key: 'plan', label: 'Plan', type: 'select', options: 'gold\nsilver' });
    expect(created.status).toBe(302);
    const saved = await browser.post(created.location!, { key: 'renamed', label: 'Service plan', type: 'text', options: 'gold\nsilver' });
    expect(saved.body).toContain('Saved.');
    const property = await api.db.prisma.contactProperty.findFirstOrThrow({ where: { organizationId: tenant.organizationId } });
    expect(property).toMatchObject({ key: 'plan', label: 'Service plan', type: 'select' });

    await browser.get('/contacts');
    const imported = await browser.post('/contacts/import', { csv: 'email,plan\nbuyer@example.com,gold\nother@example.com,platinum\n' });
    expect(imported.body).toContain('1 created, 0 updated, 1 invalid');
  });
});

describe('calls in the dashboard', () => {
  it('filters as the API does, a filter that does not parse is the API’s 422, and exports what the filters select', async ({ api, tenant }) => {
    const browser = await ownerOf(api, tenant);
    for (const [sid, direction, transport, status] of [
      ['CAin1', 'inbound', 'browser', 'completed'],
      ['CAout1', 'outbound', 'sip', 'failed'],
    ] as const) {
      await api.db.prisma.call.create({
        data: { callSid: sid, organizationId: tenant.organizationId, direction, transport, status, fromNumber: '+14155550100' },
      });
    }
    const inbound = await browser.get('/calls?direction=inbound');
    expect(inbound.body).toContain('/calls/CAin1');
    expect(inbound.body).not.toContain('/calls/CAout1');
    expect((await browser.get('/calls?transport=sip&status=failed')).body).toContain('/calls/CAout1');
    expect((await browser.get('/calls?status=nonsense')).status).toBe(422);
    const csv = await browser.get('/calls/export?direction=outbound');
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.body).toContain('CAout1');
    expect(csv.body).not.toContain('CAin1');
  });
});

describe('assistants in the dashboard', () => {
  it('shows the API’s warnings on an assistant whose vendors have no key', async ({ api, tenant }) => {
    const browser = await ownerOf(api, tenant);
    const id = (await api.call(tenant, 'POST', '/api/assistants', { name: 'Keyless', stt_settings: { provider: 'soniox' } })).body.id;
    const page = await browser.get(`/assistants/${id}`);
    expect(page.body).toContain('Calls to this assistant will fail until this is fixed');
    // Named as the builder names it, linked to its section.
    expect(page.body).toMatch(/<a href="#s-transcriber">Transcriber › Provider<\/a>: [^<]*SONIOX_API_KEY/);
  });
});

describe('saved charts in the dashboard', () => {
  it('makes a chart after showing the API’s refusal at its field, draws it on the analytics page, and deletes it', async ({ api, tenant }) => {
    const browser = await ownerOf(api, tenant);
    await browser.get('/analytics/charts/new');
    const refused = await browser.post('/analytics/charts', { name: 'Spend', metric: 'cost', aggregation: 'p99' });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatch(/id="f-aggregation-error">Cost is shown as Total, Average/);
    const made = await browser.post('/analytics/charts', {
      name: 'Daily spend',
      metric: 'cost',
      aggregation: 'sum',
      chart_type: 'line',
      'group_by.time': 'day',
    });
    expect(made.status).toBe(302);
    const analytics = await browser.get('/analytics');
    expect(analytics.body).toContain('Daily spend');
    const id = made.location!.split('/').pop();
    expect((await browser.get(`/analytics/charts/${id}/export`)).headers['content-type']).toMatch(/text\/csv/);
    expect((await browser.post(`${made.location}/delete`)).location).toBe('/analytics/charts');
    expect((await browser.get('/analytics')).body).not.toContain('Daily spend');
  });
});
