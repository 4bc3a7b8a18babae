import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserSession } from '../helpers/browser-session.js';
import { createApiContext, type ApiContext, type Tenant } from '../helpers/api.js';
import { hasChromium, launchChromium } from '../helpers/chromium.js';
import { addPerson } from '../helpers/people.js';
import { signedInContext } from '../helpers/sign-in.js';
import { expectFitsAndShoot } from '../helpers/page-fit.js';

// The tool and playbook forms as a product team fills them in, in Debian's Chromium: a tool's kind chosen first, its
// request's headers and arguments as rows, a secret header typed once and never shown again, a playbook's tools ticked
// by name and its values to collect as rows. What a save stores is read back through the API and the database;
// refusals land at their controls with what was typed kept; the forms post without a script; and another
// organisation's tool is refused, never used. With SCREENSHOTS_DIR set, the forms are saved there at a desktop's and a
// phone's width.

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const SECRET = 'sk_live_4f9a2c7e1b3d5f60';

let api: ApiContext;
let base: string;
let browser: Browser | undefined;
let tenant: Tenant;
let owner: { email: string; password: string };
let deskTool: number;
let theirTool: number;

beforeAll(async () => {
  api = await createApiContext();
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  if (hasChromium) browser = await launchChromium();
  tenant = await api.tenant('Tools Co');
  owner = await addPerson(api, tenant.organizationId, 'owner');
  const desk = await api.call(tenant, 'POST', '/api/tools', { name: 'transfer_desk', type: 'transfer_call', transfer: { destination: '+14155550123' } });
  expect(desk.status, JSON.stringify(desk.body)).toBe(201);
  deskTool = (desk.body as { data: { id: number } }).data.id;
  const other = await api.tenant('Other Co');
  theirTool = (
    (await api.call(other, 'POST', '/api/tools', { name: 'their_lookup', type: 'http', http: { url: 'https://their.example.com/x' } })).body as {
      data: { id: number };
    }
  ).data.id;
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

const signedIn = (viewport = DESKTOP, javaScriptEnabled = true): Promise<{ context: BrowserContext; page: Page }> =>
  signedInContext(browser!, base, owner, { viewport, javaScriptEnabled });

const storedTool = (name: string) => api.db.prisma.tool.findFirst({ where: { organizationId: tenant.organizationId, name } });
const apiGet = async (url: string) => ((await api.call(tenant, 'GET', url)).body as { data: Record<string, unknown> }).data;

/** How far the page sticks out of the screen, and the outermost elements that do. */

describe.skipIf(!hasChromium)('the tool and playbook forms in a browser', () => {
  let lookupId: number;

  it('creates an HTTP tool from its URL, method, two headers (one secret) and an argument row, and stores them', async () => {
    const { context, page } = await signedIn();
    await page.goto(`${base}/tools/new`);
    expect(await page.getByRole('radio', { name: /HTTP request/ }).isChecked()).toBe(true);
    // The transfer's card is for another kind: it shows once that kind is chosen.
    expect(await page.getByLabel('Destination').isVisible()).toBe(false);
    await page.getByRole('radio', { name: /Transfer the call/ }).check();
    expect(await page.getByLabel('Destination').isVisible()).toBe(true);
    expect(await page.getByLabel('URL', { exact: true }).isVisible()).toBe(false);
    await page.getByRole('radio', { name: /HTTP request/ }).check();

    await page.getByLabel('Name', { exact: true }).fill('lookup_order');
    await page.getByLabel('What it does and when to use it').fill('Finds an order by its number');
    await page.getByLabel('Method').selectOption('GET');
    await page.getByLabel('URL', { exact: true }).fill('https://api.example.com/orders/{{args.number}}');
    await page.getByRole('button', { name: 'Add a header' }).click();
    await page.getByLabel('Header 1: Name').fill('Accept');
    await page.getByLabel('Header 1: Value').fill('application/json');
    await page.getByRole('button', { name: 'Add a header' }).click();
    await page.getByLabel('Header 2: Name').fill('X-Api-Key');
    await page.getByRole('switch', { name: 'Header 2: Secret' }).check();
    expect(await page.getByLabel('Header 2: Value').getAttribute('type')).toBe('password');
    await page.getByLabel('Header 2: Value').fill(SECRET);
    await page.getByRole('button', { name: 'Add an argument' }).click();
    await page.getByLabel('Argument 1: Name').fill('number');
    await page.getByLabel('Argument 1: What it is, for the model').fill('The order number the caller reads out');
    await page.getByRole('switch', { name: 'Argument 1: Required' }).check();
    // A yes-or-no argument has no list of values: the field shows for the types that take one.
    await page.getByLabel('Argument 1: Type').selectOption('boolean');
    expect(await page.getByLabel('Argument 1: Allowed values, one a line').isVisible()).toBe(false);
    await page.getByLabel('Argument 1: Type').selectOption('string');
    expect(await page.getByLabel('Argument 1: Allowed values, one a line').isVisible()).toBe(true);
    await page.getByLabel('Give up after').fill('2.5');
    await page.getByLabel('When it starts').fill('Let me look that up.');
    await expectFitsAndShoot(page, 'tool-new-1280');
    await page.getByRole('button', { name: 'Create tool' }).click();
    await page.waitForURL(/\/tools\/\d+$/);
    lookupId = Number(new URL(page.url()).pathname.split('/').pop());

    const tool = await apiGet(`/api/tools/${lookupId}`);
    expect(tool).toMatchObject({
      name: 'lookup_order',
      type: 'http',
      description: 'Finds an order by its number',
      parameters: { type: 'object', properties: { number: { type: 'string', description: 'The order number the caller reads out' } }, required: ['number'] },
      http: {
        method: 'GET',
        url: 'https://api.example.com/orders/{{args.number}}',
        headers: { Accept: 'application/json' },
        query: {},
        body: null,
        secret_headers: { 'X-Api-Key': `****${SECRET.slice(-4)}` },
        timeout_ms: 2500,
      },
      transfer: null,
      messages: { on_start: 'Let me look that up.' },
    });
    const sealed = ((await storedTool('lookup_order'))!.config as { http: { secret_headers: Record<string, string> } }).http.secret_headers['X-Api-Key'];
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain(SECRET);
    await context.close();
  });

  it('fills the edit form from what is stored, the secret unseen, and keeps the secret when saved with its field empty', async () => {
    const { context, page } = await signedIn();
    const before = ((await storedTool('lookup_order'))!.config as { http: { secret_headers: Record<string, string> } }).http.secret_headers['X-Api-Key'];
    await page.goto(`${base}/tools/${lookupId}`);
    expect(await page.content()).not.toContain(SECRET);
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('lookup_order');
    expect(await page.getByLabel('Method').inputValue()).toBe('GET');
    expect(await page.getByLabel('URL', { exact: true }).inputValue()).toBe('https://api.example.com/orders/{{args.number}}');
    expect(await page.getByLabel('Header 1: Name').inputValue()).toBe('Accept');
    expect(await page.getByLabel('Header 1: Value').inputValue()).toBe('application/json');
    expect(await page.getByLabel('Header 2: Name').inputValue()).toBe('X-Api-Key');
    expect(await page.getByRole('switch', { name: 'Header 2: Secret' }).isChecked()).toBe(true);
    const secretField = page.getByLabel('Header 2: Value');
    expect(await secretField.inputValue()).toBe('');
    expect(await secretField.getAttribute('placeholder')).toBe(`Saved ****${SECRET.slice(-4)}: empty keeps it`);
    expect(await page.getByLabel('Argument 1: Name').inputValue()).toBe('number');
    expect(await page.getByRole('switch', { name: 'Argument 1: Required' }).isChecked()).toBe(true);
    expect(await page.getByLabel('Give up after').inputValue()).toBe('2.5');

    await page.getByLabel('What it does and when to use it').fill('Finds an order by its number, with its state');
    await page.getByRole('button', { name: 'Add a query parameter' }).click();
    await page.getByLabel('Query parameter 1: Name').fill('expand');
    await page.getByLabel('Query parameter 1: Value').fill('status');
    await page.getByRole('button', { name: 'Remove header 1' }).click();
    expect(await page.getByLabel('Header 1: Name').inputValue()).toBe('X-Api-Key');
    await expectFitsAndShoot(page, 'tool-edit-1280');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\?saved=1$/);
    await page.getByText('Saved.').waitFor();

    const tool = await apiGet(`/api/tools/${lookupId}`);
    expect(tool.description).toBe('Finds an order by its number, with its state');
    expect(tool.http).toMatchObject({ headers: {}, query: { expand: 'status' }, secret_headers: { 'X-Api-Key': `****${SECRET.slice(-4)}` } });
    const after = ((await storedTool('lookup_order'))!.config as { http: { secret_headers: Record<string, string> } }).http.secret_headers['X-Api-Key'];
    expect(after).toBe(before);
    await context.close();
  });

  it('switches the arguments to a JSON Schema filled from the rows, and keeps a schema rows cannot say as JSON', async () => {
    const { context, page } = await signedIn();
    await page.goto(`${base}/tools/${lookupId}`);
    await page.locator('summary', { hasText: 'Edit as JSON Schema' }).click();
    const asJson = page.getByRole('switch', { name: 'Use this JSON Schema instead of the rows' });
    await asJson.check();
    const json = page.getByLabel('Arguments as JSON Schema');
    expect(JSON.parse(await json.inputValue())).toEqual({
      type: 'object',
      properties: { number: { type: 'string', description: 'The order number the caller reads out' } },
      required: ['number'],
    });
    expect(await page.getByLabel('Argument 1: Name').isVisible()).toBe(false);
    const nested = {
      type: 'object',
      properties: { number: { type: 'string', pattern: '^[0-9]{4}$' }, items: { type: 'array', items: { type: 'string' } } },
      required: ['number'],
    };
    await json.fill(JSON.stringify(nested));
    // Turned off, it turns itself back on and says why.
    await asJson.click();
    await page.getByText('it stays as JSON, so nothing of it is lost').waitFor();
    expect(await asJson.isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\?saved=1$/);
    expect((await apiGet(`/api/tools/${lookupId}`)).parameters).toEqual(nested);
    // Stored so, it opens as JSON; a flat schema typed there turns back into rows.
    expect(await page.getByRole('switch', { name: 'Use this JSON Schema instead of the rows' }).isChecked()).toBe(true);
    await page.getByLabel('Arguments as JSON Schema').fill('{"type": "object", "properties": {"number": {"type": "string"}}, "required": ["number"]}');
    await page.getByRole('switch', { name: 'Use this JSON Schema instead of the rows' }).uncheck();
    expect(await page.getByLabel('Argument 1: Name').inputValue()).toBe('number');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\?saved=1$/);
    expect((await apiGet(`/api/tools/${lookupId}`)).parameters).toEqual({ type: 'object', properties: { number: { type: 'string' } }, required: ['number'] });
    await context.close();
  });

  it('shows refusals at the controls they concern and keeps everything as typed, the service’s after the schema’s', async () => {
    const { context, page } = await signedIn();
    await page.goto(`${base}/tools/new`);
    await page.getByLabel('Name', { exact: true }).fill('Lookup order');
    await page.getByLabel('URL', { exact: true }).fill('https://{{var.host}}/orders');
    await page.getByRole('button', { name: 'Add a header' }).click();
    await page.getByLabel('Header 1: Name').fill('Authorization');
    await page.getByRole('switch', { name: 'Header 1: Secret' }).check();
    await page.getByLabel('Give up after').fill('45');
    await page.getByRole('button', { name: 'Create tool' }).click();
    await page.getByRole('alert').first().waitFor();

    expect(await page.locator('.notice.bad').textContent()).toBe('3 settings were refused: see the marked fields.');
    expect(await page.locator('#f-name-error').textContent()).toBe('Start with a letter and use only letters, digits, _ and - (no spaces), 64 at most.');
    expect(await page.locator('#f-http-timeout_ms-error').textContent()).toBe('From 0.5 to 30 seconds.');
    expect(await page.locator('#f-header-0-error').textContent()).toBe('Type the secret value, or clear the row.');
    expect(await page.getByLabel('Header 1: Value').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    // What was typed is all still there.
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Lookup order');
    expect(await page.getByLabel('URL', { exact: true }).inputValue()).toBe('https://{{var.host}}/orders');
    expect(await page.getByLabel('Header 1: Name').inputValue()).toBe('Authorization');
    expect(await page.getByRole('switch', { name: 'Header 1: Secret' }).isChecked()).toBe(true);
    expect(await page.getByLabel('Give up after').inputValue()).toBe('45');
    await expectFitsAndShoot(page, 'tool-refused-1280');

    // With the shapes right, the service judges the rest: a URL whose host a placeholder would choose.
    await page.getByLabel('Name', { exact: true }).fill('lookup_ticket');
    await page.getByLabel('Give up after').fill('4');
    await page.getByLabel('Header 1: Value').fill('Bearer typed-just-now-123');
    await page.getByRole('button', { name: 'Create tool' }).click();
    await page.locator('#f-http-url-error').waitFor();
    expect(await page.locator('#f-http-url-error').textContent()).toMatch(/a placeholder may fill the path and query, not the host/);
    expect(await page.locator('.notice.bad').textContent()).toBe('One setting was refused: see the marked field.');
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('lookup_ticket');
    expect(await page.getByLabel('Header 1: Value').inputValue()).toBe('Bearer typed-just-now-123');
    expect(await storedTool('Lookup order')).toBeNull();
    expect(await storedTool('lookup_ticket')).toBeNull();
    await context.close();
  });

  it('creates a playbook with two tools ticked by name and two values to collect, and stores them', async () => {
    const { context, page } = await signedIn();
    await page.goto(`${base}/playbooks/new`);
    await page.getByLabel('Name', { exact: true }).fill('Order status');
    await page.getByLabel('When to use it', { exact: true }).fill('The caller asks where their order is.');
    await page.getByLabel('Goal', { exact: true }).fill('Tell the caller where their order is');
    await page.getByLabel('Steps, one a line').fill('Ask for the order number\nLook it up\nSay where it is');
    await page.getByRole('button', { name: 'Add an example' }).click();
    await page.getByLabel('Example 1: The exchange, a turn a line').fill('Caller: Where is my order?\nAssistant: What is its number?');
    await page.getByRole('checkbox', { name: /lookup_order/ }).check();
    await page.getByRole('checkbox', { name: /transfer_desk/ }).check();
    await page.getByRole('button', { name: 'Add a value' }).click();
    await page.getByLabel('Value 1: Saved as').fill('order_number');
    await page.getByLabel('Value 1: What it is, for the model').fill('The number on the receipt');
    await page.getByRole('switch', { name: 'Value 1: Required' }).check();
    await page.getByRole('button', { name: 'Add a value' }).click();
    await page.getByLabel('Value 2: Saved as').fill('tier');
    expect(await page.getByLabel('Value 2: Its values, one a line (for “One of a list”)').isVisible()).toBe(false);
    await page.getByLabel('Value 2: Type').selectOption({ label: 'One of a list' });
    await page.getByLabel('Value 2: Its values, one a line (for “One of a list”)').fill('Gold\nSilver');
    await page.getByRole('radio', { name: /An agent of its own/ }).check();
    await expectFitsAndShoot(page, 'playbook-new-1280');
    await page.getByRole('button', { name: 'Create playbook' }).click();
    await page.waitForURL(/\/playbooks\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').pop());

    const playbook = await apiGet(`/api/playbooks/${id}`);
    expect(playbook).toMatchObject({
      name: 'Order status',
      description: 'The caller asks where their order is.',
      goal: 'Tell the caller where their order is',
      instructions: ['Ask for the order number', 'Look it up', 'Say where it is'],
      examples: [
        [
          { role: 'user', content: 'Where is my order?' },
          { role: 'assistant', content: 'What is its number?' },
        ],
      ],
      tool_ids: [lookupId, deskTool],
      collect: [
        { name: 'order_number', type: 'string', description: 'The number on the receipt', required: true, values: null },
        { name: 'tier', type: 'enum', description: '', required: false, values: ['Gold', 'Silver'] },
      ],
      mode: 'handoff',
    });

    // The edit form is filled from what is stored.
    expect(await page.getByRole('checkbox', { name: /lookup_order/ }).isChecked()).toBe(true);
    expect(await page.getByLabel('Value 2: Type').inputValue()).toBe('enum');
    expect(await page.getByLabel('Example 1: The exchange, a turn a line').inputValue()).toBe('Caller: Where is my order?\nAssistant: What is its number?');
    await expectFitsAndShoot(page, 'playbook-edit-1280');
    await context.close();
  });

  it('creates an MCP server tool with its credential unseen, the tools it offers one a line, and keeps the credential on save', async () => {
    const token = 'Bearer mcp-token-4321';
    const { context, page } = await signedIn();
    await page.goto(`${base}/tools/new`);
    await page.getByRole('radio', { name: /MCP server/ }).check();
    expect(await page.getByLabel('URL', { exact: true }).isVisible()).toBe(false);
    await page.getByLabel('Name', { exact: true }).fill('orders');
    await page.getByLabel('What it does and when to use it').fill('The order desk');
    await page.getByLabel('Server URL').fill('https://mcp.example.com/mcp');
    await page.getByLabel('Authorization header').fill(token);
    await page.getByLabel('Tools offered').fill('lookup_order\n cancel_order \n');
    await page.getByLabel('Server timeout').fill('3');
    await expectFitsAndShoot(page, 'tool-mcp-new-1280');
    await page.getByRole('button', { name: 'Create tool' }).click();
    await page.waitForURL(/\/tools\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    type Stored = { mcp: { url: string; tools: string[]; timeout_ms: number; secret_headers: Record<string, string> } };
    const stored = async () => ((await api.db.prisma.tool.findUniqueOrThrow({ where: { id } })).config as Stored).mcp;
    expect(await stored()).toMatchObject({ url: 'https://mcp.example.com/mcp', tools: ['lookup_order', 'cancel_order'], timeout_ms: 3000 });
    const sealed = (await stored()).secret_headers.Authorization!;
    expect(sealed).not.toContain('mcp-token');
    expect(await page.content()).not.toContain('mcp-token');
    expect(await page.getByLabel('Authorization header').getAttribute('placeholder')).toBe('Saved ****4321');
    // Saved again with the credential left empty: the same sealed credential stays.
    await page.getByLabel('Tools offered').fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved').first().waitFor();
    expect(await stored()).toMatchObject({ tools: null, secret_headers: { Authorization: sealed } });
    await context.close();
  });

  it('fits a phone’s width, with every control on the screen', async () => {
    const { context, page } = await signedIn(PHONE);
    await page.goto(`${base}/tools/${lookupId}`);
    await expectFitsAndShoot(page, 'tool-edit-390');
    await page.goto(`${base}/tools/new`);
    await page.getByRole('button', { name: 'Add a header' }).click();
    await page.getByRole('button', { name: 'Add an argument' }).click();
    await page.getByRole('button', { name: 'Create tool' }).click();
    await page.getByRole('alert').first().waitFor();
    await expectFitsAndShoot(page, 'tool-refused-390');
    await page.goto(`${base}/playbooks/new`);
    await page.getByRole('button', { name: 'Add a value' }).click();
    await page.getByRole('button', { name: 'Add an example' }).click();
    await expectFitsAndShoot(page, 'playbook-new-390');
    await context.close();
  });

  it('submits both forms without JavaScript, spare rows adding a header, an argument and a value to collect', async () => {
    const { context, page } = await signedIn(DESKTOP, false);
    await page.goto(`${base}/tools/new`);
    expect(await page.getByRole('button', { name: 'Add a header' }).isVisible()).toBe(false);
    await page.getByLabel('Name', { exact: true }).fill('create_ticket');
    await page.getByLabel('URL', { exact: true }).fill('https://api.example.com/tickets');
    await page.getByLabel('Header 1: Name').fill('Authorization');
    await page.getByLabel('Header 1: Value').fill('Bearer plain-script-free-token');
    await page.getByRole('switch', { name: 'Header 1: Secret' }).check();
    await page.getByLabel('Argument 1: Name').fill('subject');
    await page.getByLabel('Argument 1: Allowed values, one a line').fill('billing\ndelivery');
    await page.getByLabel('Body template').fill('{"subject": "{{args.subject}}"}');
    await expectFitsAndShoot(page, 'tool-new-noscript-1280');
    await page.getByRole('button', { name: 'Create tool' }).click();
    await page.waitForURL(/\/tools\/\d+$/);
    const ticketId = Number(new URL(page.url()).pathname.split('/').pop());
    expect(await apiGet(`/api/tools/${ticketId}`)).toMatchObject({
      parameters: { type: 'object', properties: { subject: { type: 'string', enum: ['billing', 'delivery'] } } },
      http: { method: 'POST', body: { subject: '{{args.subject}}' }, secret_headers: { Authorization: '****oken' }, headers: {} },
    });

    await page.goto(`${base}/playbooks/new`);
    await page.getByLabel('Name', { exact: true }).fill('Open a ticket');
    await page.getByRole('checkbox', { name: /create_ticket/ }).check();
    await page.getByLabel('Value 1: Saved as').fill('subject');
    await page.getByLabel('Example 1: The exchange, a turn a line').fill('Caller: My parcel is late\nAssistant: I will open a ticket.');
    await page.getByRole('button', { name: 'Create playbook' }).click();
    await page.waitForURL(/\/playbooks\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    expect(await apiGet(`/api/playbooks/${id}`)).toMatchObject({
      tool_ids: [ticketId],
      collect: [{ name: 'subject', type: 'string', required: false, values: null }],
      examples: [[{ role: 'user' }, { role: 'assistant' }]],
    });
    await context.close();
  });
});

describe('the tool and playbook forms’ posts', () => {
  async function session() {
    return BrowserSession.signedIn(api.app, owner, '/playbooks/new');
  }

  it('refuses another organisation’s tool at its box, stores nothing, and never names it', async () => {
    const s = await session();
    const res = await s.post('/playbooks', { name: 'Tenancy check', tool_ids: String(theirTool) });
    expect(res.status).toBe(422);
    expect(res.body).toMatch(new RegExp(`id="f-tool_ids-${theirTool}-error">Not one of this organisation’s tools: untick it\\.`));
    expect(res.body).not.toContain('their_lookup');
    expect(await api.db.prisma.playbook.count({ where: { name: 'Tenancy check' } })).toBe(0);
    // Nor can their tool be opened or saved through this organisation's pages.
    expect((await s.get(`/tools/${theirTool}`)).status).toBe(404);
    expect((await s.post(`/tools/${theirTool}`, { name: 'taken', type: 'end_call' })).status).toBe(404);
  });

  it('says where tools are made when the organisation has none', async () => {
    const empty = await api.tenant('No tools');
    const person = await addPerson(api, empty.organizationId, 'owner');
    const s = new BrowserSession(api.app);
    await s.signIn(person.email, person.password);
    const page = await s.get('/playbooks/new');
    expect(page.status).toBe(200);
    expect(page.body).toMatch(/No tools yet\. <a href="\/tools\/new">Create a tool<\/a>/);
  });

  it('answers a malformed post with the form and its message, never a server error', async () => {
    const s = await session();
    const raw = (url: string, payload: string, type = 'application/x-www-form-urlencoded') =>
      s.request({ method: 'POST', url, payload, headers: { 'content-type': type, 'x-csrf-token': s.csrf } });
    const answers = [
      await s.post('/tools', {}),
      await s.post('/playbooks', {}),
      await raw('/tools', `_csrf=${encodeURIComponent(s.csrf)}&type=http&type=x&name=a&header_name%5B%5D=A&header_secret%5B%5D=9&http.timeout_ms=lots`),
      await raw('/tools', JSON.stringify({ type: ['http'], 'param_name[]': { a: 1 }, parameters_as_json: 'true', parameters: [1] }), 'application/json'),
      await raw('/playbooks', JSON.stringify({ name: { a: 1 }, tool_ids: [[1]], 'collect_name[]': 5, 'example[]': ['Nobody: hi'] }), 'application/json'),
      await raw('/playbooks', JSON.stringify([1, 2, 3]), 'application/json'),
    ];
    for (const res of answers) {
      expect(res.status, res.body.slice(0, 300)).toBe(422);
      expect(res.body).toContain('class="notice bad" role="alert"');
    }
  });
});
