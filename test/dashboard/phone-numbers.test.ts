import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiContext, type ApiContext, type Tenant } from '../helpers/api.js';
import { BrowserSession } from '../helpers/browser-session.js';
import { hasChromium, launchChromium } from '../helpers/chromium.js';
import { addPerson, type Person } from '../helpers/people.js';
import { signIn } from '../helpers/sign-in.js';

// The phone numbers page as a person uses it, in Debian's Chromium: a Twilio account added (its auth token afterwards
// only said to be set), a number added with its connection and assistant picked by name, its assistant changed in its
// row, the API's refusals at their fields with what was typed kept, numbers and connections removed. What each action
// stores is read back from the database. Tenancy and odd form shapes are checked request by request.

const WIDTHS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const;
const shotsDir = process.env.SCREENSHOTS_DIR ? path.resolve(process.env.SCREENSHOTS_DIR) : undefined;
const SID = 'AC0123456789abcdef0123456789abcdef';
const TOKEN = 'twilio-auth-token-9f3a';

let api: ApiContext;
let base: string;
let browser: Browser | undefined;
let tenant: Tenant;
let owner: Person;
const assistants: Record<string, number> = {};

beforeAll(async () => {
  // An http PUBLIC_URL: carriers cannot reach its media streams, which a Twilio account's row must say.
  api = await createApiContext({ publicUrl: 'http://localhost' });
  tenant = await api.tenant('Numbers Co');
  owner = await addPerson(api, tenant.organizationId, 'owner');
  for (const [name, is_active] of [
    ['Front desk', true],
    ['After hours', false],
  ] as const) {
    const created = await api.call(tenant, 'POST', '/api/assistants', { name, is_active });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    assistants[name] = created.body.id;
  }
  if (!hasChromium) return;
  await api.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

async function signedIn(
  person: Person = owner,
  viewport: { width: number; height: number } = WIDTHS.desktop,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser!.newContext({ viewport });
  const page = await context.newPage();
  await signIn(page, base, person);
  await page.goto(`${base}/phone-numbers`);
  return { context, page };
}

async function sessionOf(person: Person): Promise<BrowserSession> {
  return BrowserSession.signedIn(api.app, person, '/phone-numbers');
}

const formOf = (page: Page, heading: string) => page.locator('form').filter({ has: page.getByRole('heading', { name: heading, exact: true }) });
const numbersOf = (organizationId: number) => api.db.prisma.phoneNumber.findMany({ where: { organizationId }, orderBy: { id: 'asc' } });
const checkedText = (page: Page, label: string) => page.getByLabel(label, { exact: true }).locator('option:checked').textContent();

describe.skipIf(!hasChromium)('the phone numbers page', () => {
  it('starts empty with one state that says to add the carrier connection first', async () => {
    const { context, page } = await signedIn();
    expect(await page.locator('.empty').count()).toBe(1);
    expect(await page.locator('.empty').textContent()).toMatch(/No phone numbers yet\..*first add the connection to it below/);
    // Without a connection there is nothing to add a number to: only the connection forms are offered.
    expect(await page.getByRole('heading', { name: 'Add a number' }).count()).toBe(0);
    await context.close();
  });

  it('adds a Twilio account whose auth token is afterwards only said to be set, and warns that PUBLIC_URL must be https', async () => {
    const { context, page } = await signedIn();
    const twilio = formOf(page, 'Twilio account');
    await twilio.getByLabel('Name').fill('Main account');
    await twilio.getByLabel('Account SID').fill(SID);
    await twilio.getByLabel('Auth token').fill(TOKEN);
    await twilio.getByRole('button', { name: 'Add Twilio account' }).click();
    await page.getByText('Connection added. Now add the numbers you have there.').waitFor();

    const row = page.getByRole('row', { name: /Main account/ });
    expect(await row.textContent()).toMatch(/Twilio account.*AC0123456789abcdef0123456789abcdef.*Auth token set/s);
    const shown = await page.content();
    expect(shown).not.toContain(TOKEN);
    expect(shown).not.toContain(TOKEN.slice(-4));
    expect(await page.locator('.notice.warn').textContent()).toMatch(/Main account:.*PUBLIC_URL is not https/);

    const stored = await api.db.prisma.phoneConnection.findFirstOrThrow({ where: { organizationId: tenant.organizationId } });
    expect(stored).toMatchObject({ name: 'Main account', kind: 'twilio', accountSid: SID });
    expect(stored.authToken).not.toContain(TOKEN);
    await context.close();
  });

  it('adds a number with its connection and assistant picked by name, then changes its assistant in its row', async () => {
    const { context, page } = await signedIn();
    const add = formOf(page, 'Add a number');
    await add.getByLabel('Number').fill('+14155550123');
    await add.getByLabel('Label').fill('Main line');
    await add.getByLabel('Connection').selectOption({ label: 'Main account · Twilio account' });
    await add.getByLabel('Answered by').selectOption({ label: 'Front desk' });
    await add.getByRole('button', { name: 'Add number' }).click();
    await page.getByText('Number added.').waitFor();

    const [number] = await numbersOf(tenant.organizationId);
    const connection = await api.db.prisma.phoneConnection.findFirstOrThrow({ where: { organizationId: tenant.organizationId } });
    expect(number).toMatchObject({ number: '+14155550123', label: 'Main line', assistantId: assistants['Front desk'], phoneConnectionId: connection.id });
    expect(await checkedText(page, 'Assistant answering +14155550123')).toBe('Front desk');
    expect(await page.getByRole('row', { name: /\+14155550123/ }).textContent()).toMatch(/Main line.*Main account/s);

    await page.getByLabel('Assistant answering +14155550123', { exact: true }).selectOption({ label: 'After hours (inactive)' });
    await page.getByRole('button', { name: 'Change the assistant of +14155550123' }).click();
    await page.getByText('Assistant changed').waitFor();
    expect((await numbersOf(tenant.organizationId))[0]!.assistantId).toBe(assistants['After hours']);
    expect(await checkedText(page, 'Assistant answering +14155550123')).toBe('After hours (inactive)');
    await context.close();
  });

  it('shows the API’s refusals at the fields they concern and keeps what was typed', async () => {
    const { context, page } = await signedIn();
    const add = formOf(page, 'Add a number');
    await add.getByLabel('Number').fill('415 555');
    await add.getByLabel('Label').fill('Typo line');
    await add.getByLabel('Answered by').selectOption({ label: 'Front desk' });
    await add.getByRole('button', { name: 'Add number' }).click();
    await page.locator('#f-number-error').waitFor();
    expect(await page.locator('#f-number-error').textContent()).toMatch(/not a valid E\.164 phone number/);
    expect(await page.locator('#f-number').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#f-number').inputValue()).toBe('415 555');
    expect(await page.locator('#f-label').inputValue()).toBe('Typo line');
    expect(await checkedText(page, 'Answered by')).toBe('Front desk');

    // A number already registered: the API's 409, at the number.
    await formOf(page, 'Add a number').getByLabel('Number').fill('+14155550123');
    await formOf(page, 'Add a number').getByRole('button', { name: 'Add number' }).click();
    await page.getByText('This number is already registered').waitFor();
    expect(await page.locator('#f-number-error').textContent()).toBe('This number is already registered');

    // With a connection in place, adding another is folded away until asked for.
    expect(await formOf(page, 'Twilio account').isVisible()).toBe(false);
    await page.getByText('Add a connection', { exact: true }).click();
    const twilio = formOf(page, 'Twilio account');
    await twilio.getByLabel('Name').fill('Second account');
    await twilio.getByLabel('Account SID').fill('AC123');
    await twilio.getByRole('button', { name: 'Add Twilio account' }).click();
    await page.locator('#f-twilio-account_sid-error').waitFor();
    // The API's own words for a SID of the wrong form (lib/zod/detail.ts names the pattern, not the SID).
    expect(await page.locator('#f-twilio-account_sid-error').textContent()).toBe('Value must be a Twilio account SID: AC followed by 32 hex digits');
    expect(await page.locator('#f-twilio-account_sid').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#f-twilio-auth_token-error').textContent()).toMatch(/required/i);
    expect(await formOf(page, 'Twilio account').getByLabel('Name').inputValue()).toBe('Second account');
    expect(await formOf(page, 'Twilio account').getByLabel('Account SID').inputValue()).toBe('AC123');

    // An assistant removed after the page was drawn: the change is refused at the row's select.
    const gone = (await api.call(tenant, 'POST', '/api/assistants', { name: 'Soon gone' })).body.id as number;
    await page.goto(`${base}/phone-numbers`);
    await page.getByLabel('Assistant answering +14155550123', { exact: true }).selectOption({ label: 'Soon gone' });
    expect((await api.call(tenant, 'DELETE', `/api/assistants/${gone}`)).status).toBe(204);
    await page.getByRole('button', { name: 'Change the assistant of +14155550123' }).click();
    await page.getByText('No such assistant').waitFor();
    expect(await page.locator(`#answer-${(await numbersOf(tenant.organizationId))[0]!.id}-error`).textContent()).toBe('No such assistant');
    expect((await numbersOf(tenant.organizationId)).map((n) => n.number)).toEqual(['+14155550123']);
    expect(await api.db.prisma.phoneConnection.count({ where: { organizationId: tenant.organizationId } })).toBe(1);
    await context.close();
  });

  it('changes a connection’s name on its page and keeps the auth token when left empty, replacing it when typed', async () => {
    const { context, page } = await signedIn();
    await page.getByRole('link', { name: 'Main account' }).click();
    await page.getByRole('heading', { name: 'Main account', level: 1 }).waitFor();
    const before = await api.db.prisma.phoneConnection.findFirstOrThrow({ where: { organizationId: tenant.organizationId } });
    expect(await page.getByLabel('Auth token').inputValue()).toBe('');
    expect(await page.locator('#f-twilio-auth_token-hint').textContent()).toMatch(/^set; type a new one to replace it/);

    await page.getByLabel('Name').fill('Twilio, main');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    const renamed = await api.db.prisma.phoneConnection.findUniqueOrThrow({ where: { id: before.id } });
    expect(renamed).toMatchObject({ name: 'Twilio, main', authToken: before.authToken, accountSid: SID });

    await page.getByLabel('Account SID').fill('');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#f-twilio-account_sid-error').waitFor();
    expect(await page.getByLabel('Name').inputValue()).toBe('Twilio, main');

    await page.getByLabel('Account SID').fill(SID);
    await page.getByLabel('Auth token').fill('a-new-auth-token');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    const rotated = await api.db.prisma.phoneConnection.findUniqueOrThrow({ where: { id: before.id } });
    expect(rotated.authToken).not.toBe(before.authToken);
    expect(await page.content()).not.toContain('a-new-auth-token');
    await context.close();
  });

  it('fits a phone and a desktop, with data and empty, every control labelled', async () => {
    const empty = await api.tenant('No numbers yet');
    const emptyOwner = await addPerson(api, empty.organizationId, 'owner');
    const connection = (await api.db.prisma.phoneConnection.findFirstOrThrow({ where: { organizationId: tenant.organizationId } })).id;
    // One sign-in a person, its pages seen at each width in turn.
    for (const [person, pages] of [
      [
        owner,
        [
          ['/phone-numbers', 'phone-numbers'],
          [`/phone-numbers/connections/${connection}`, 'phone-connection'],
        ],
      ],
      [emptyOwner, [['/phone-numbers', 'phone-numbers-empty']]],
    ] as const) {
      const { context, page } = await signedIn(person);
      for (const [width, viewport] of Object.entries(WIDTHS)) {
        await page.setViewportSize(viewport);
        for (const [url, name] of pages) {
          await page.goto(`${base}${url}`);
          // Nothing sticks out of the screen, and no table hides a control off its edge behind a sideways scroll.
          const layout = (await page.evaluate(`(() => ({
          overflow: document.documentElement.scrollWidth - window.innerWidth,
          unlabelled: [...document.querySelectorAll('input:not([type=hidden]), select, textarea')].filter((el) => !el.labels?.length).length,
          hidden: [...document.querySelectorAll('.table-wrap')].filter((wrap) => wrap.scrollWidth > wrap.clientWidth
            || [...wrap.querySelectorAll('td select, td button')].some((el) => el.getBoundingClientRect().right > wrap.getBoundingClientRect().right)).length,
        }))()`)) as { overflow: number; unlabelled: number; hidden: number };
          expect(layout.overflow, `${url} at ${width}`).toBeLessThanOrEqual(0);
          expect(layout.unlabelled, `${url}`).toBe(0);
          expect(layout.hidden, `${url} at ${width}: a table scrolls sideways`).toBe(0);
          if (shotsDir) {
            await mkdir(shotsDir, { recursive: true });
            await page.screenshot({ path: path.join(shotsDir, `${name}-${width}.png`), fullPage: true });
          }
        }
      }
      await context.close();
    }
  });

  it('removes a number and then its connection, each after asking', async () => {
    const { context, page } = await signedIn();
    const asked: string[] = [];
    page.on('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.accept();
    });
    await page.getByRole('button', { name: 'Remove +14155550123' }).click();
    await page.getByText('Number removed.').waitFor();
    expect(asked[0]).toMatch(/^Remove \+14155550123\?/);
    expect(await numbersOf(tenant.organizationId)).toEqual([]);
    expect(await page.locator('.empty').textContent()).toMatch(/No phone numbers yet\. Add one below/);

    await page.getByRole('button', { name: 'Remove Twilio, main' }).click();
    await page.getByText('Connection removed, with its numbers.').waitFor();
    expect(asked[1]).toMatch(/^Remove the connection Twilio, main\?/);
    expect(await api.db.prisma.phoneConnection.count({ where: { organizationId: tenant.organizationId } })).toBe(0);
    await context.close();
  });
});

describe('phone numbers pages, request by request', () => {
  it('answers 404 for another organisation’s number and connection, and changes nothing of theirs', async () => {
    const other = await api.tenant('Other numbers');
    const theirConnection = (await api.call(other, 'POST', '/api/phone-connections', { name: 'Their trunk', sip_address: 'sip.other.example' })).body.data.id;
    const theirNumber = (await api.call(other, 'POST', '/api/phone-numbers', { number: '+14155550177', phone_connection_id: theirConnection })).body.data.id;
    const session = await sessionOf(owner);

    expect((await session.post(`/phone-numbers/${theirNumber}/assistant`, { assistant_id: String(assistants['Front desk']) })).status).toBe(404);
    expect((await session.post(`/phone-numbers/${theirNumber}/assistant`, { assistant_id: 'not a number' })).status).toBe(404);
    expect((await session.post(`/phone-numbers/${theirNumber}/delete`)).status).toBe(404);
    expect((await session.get(`/phone-numbers/connections/${theirConnection}`)).status).toBe(404);
    expect((await session.post(`/phone-numbers/connections/${theirConnection}`, { name: 'Mine now' })).status).toBe(404);
    expect((await session.post(`/phone-numbers/connections/${theirConnection}/delete`)).status).toBe(404);

    // Their connection named in a new number is refused at its field, as the API refuses it: no such connection.
    const borrowed = await session.post('/phone-numbers', { number: '+14155550188', phone_connection_id: String(theirConnection) });
    expect(borrowed.status).toBe(422);
    expect(borrowed.body).toMatch(/id="f-phone_connection_id-error">No such phone connection</);

    const theirs = await api.db.prisma.phoneNumber.findUniqueOrThrow({ where: { id: theirNumber } });
    expect(theirs).toMatchObject({ organizationId: other.organizationId, assistantId: null });
    expect((await api.db.prisma.phoneConnection.findUniqueOrThrow({ where: { id: theirConnection } })).name).toBe('Their trunk');
    expect(await numbersOf(tenant.organizationId)).toEqual([]);
  });

  it('answers a form of any shape with a page, never a server error', async () => {
    const session = await sessionOf(owner);
    const mine = (await api.call(tenant, 'POST', '/api/phone-connections', { name: 'Shapes trunk', sip_address: 'sip.shapes.example' })).body.data.id;
    const form = (payload: string, url: string) =>
      session.request({
        method: 'POST',
        url,
        payload: `_csrf=${encodeURIComponent(session.csrf)}&${payload}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    const answers = [
      await session.post('/phone-numbers', {}),
      await form('number=%2B14155550199&number=%2B14155550198&phone_connection_id=x', '/phone-numbers'),
      await session.api('POST', '/phone-numbers', { number: 14155550199, phone_connection_id: [mine], assistant_id: { id: 1 } }),
      await session.api('POST', '/phone-numbers', [1, 2, 3]),
      await session.post('/phone-numbers', { number: '+14155550199', phone_connection_id: '99999999999999999999' }),
      await session.post('/phone-numbers/connections', { kind: 'fax', name: 'Fax' }),
      await session.post('/phone-numbers/connections', {}),
      await form('kind=sip&kind=twilio&name=Twice', '/phone-numbers/connections'),
      await session.post('/phone-numbers/connections', { kind: 'sip', name: 'x'.repeat(500), sip_address: 'not a host!', sip_transport: 'carrier-pigeon' }),
      await session.post(`/phone-numbers/connections/${mine}`, { sip_transport: 'smoke', livekit_trunk_id: 'nope' }),
      await session.post('/phone-numbers/abc/assistant', { assistant_id: '1' }),
      await session.post('/phone-numbers/0/delete'),
      await session.get('/phone-numbers/connections/99999999999999999999'),
      await session.get('/phone-numbers?page=-4&done=%3Cscript%3E'),
    ];
    for (const answer of answers) expect(answer.status, answer.body.slice(0, 300)).toBeLessThan(500);
    expect(answers.slice(0, 10).map((a) => a.status)).toEqual([422, 422, 422, 422, 422, 422, 422, 422, 422, 422]);
    expect(answers[5]!.body).toMatch(/role="alert">[^<]*Pick one of the choices/);
    expect(answers[8]!.body).toMatch(/id="f-sip-sip_address-error">/);
    expect(answers[8]!.body).toMatch(/id="f-sip-sip_transport-error">/);
    expect(answers[9]!.body).toMatch(/id="f-sip-livekit_trunk_id-error">/);
    expect(answers.at(-1)!.status).toBe(200);
    expect(answers.at(-1)!.body).not.toContain('<script>');
    expect(await numbersOf(tenant.organizationId)).toEqual([]);
    expect(await api.db.prisma.phoneConnection.count({ where: { organizationId: tenant.organizationId } })).toBe(1);
    await api.call(tenant, 'DELETE', `/api/phone-connections/${mine}`);
  });
});
