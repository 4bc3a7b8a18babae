import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { apiTestWith } from '../helpers/fixtures.js';
import type { ApiContext } from '../helpers/api.js';
import { BrowserSession } from '../helpers/browser-session.js';
import { addPerson } from '../helpers/people.js';

// Keys, membership, roles and password resets through the session-only API and the pages, as people use them.

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'people-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const it = apiTestWith({ dataDir });
const mailLog = () => readFileSync(path.join(dataDir, 'mail.log'), 'utf8');

async function signedIn(api: ApiContext, person: { email: string; password: string }): Promise<BrowserSession> {
  const browser = new BrowserSession(api.app);
  await browser.signIn(person.email, person.password);
  return browser;
}

describe('API keys', () => {
  it('are created once in the clear, listed by prefix with creator and last use, work against the API, and stop at once when revoked', async ({
    api,
    tenant,
  }) => {
    const owner = await addPerson(api, tenant.organizationId, 'owner');
    const browser = await signedIn(api, owner);
    const created = await browser.api('POST', '/api/organization/api-keys', { name: 'CRM sync' });
    expect(created.status).toBe(201);
    const key = JSON.parse(created.body).data;
    expect(key.key).toMatch(/^vak_/);
    expect(key.prefix).toBe(key.key.slice(0, 12));
    expect(key.created_by).toMatchObject({ user_id: owner.userId, email: owner.email });

    const use = await api.app.inject({ method: 'GET', url: '/api/assistants', headers: { authorization: `Bearer ${key.key}` } });
    expect(use.statusCode).toBe(200);
    await api.app.flushKeyUsage();
    const listed = JSON.parse((await browser.api('GET', '/api/organization/api-keys')).body).data.find((k: { id: number }) => k.id === key.id);
    expect(listed.key).toBeUndefined();
    expect(listed.last_used_at).not.toBeNull();
    expect(JSON.stringify(JSON.parse((await browser.api('GET', '/api/organization/api-keys')).body))).not.toContain(key.key);

    expect((await browser.api('DELETE', `/api/organization/api-keys/${key.id}`)).status).toBe(200);
    expect((await api.app.inject({ method: 'GET', url: '/api/assistants', headers: { authorization: `Bearer ${key.key}` } })).statusCode).toBe(401);
    expect((await browser.api('DELETE', `/api/organization/api-keys/${key.id}`)).status).toBe(404);
  });

  it('are not for members, and another organisation’s key is not found', async ({ api, tenant }) => {
    const member = await signedIn(api, await addPerson(api, tenant.organizationId, 'member'));
    const refused = await member.api('POST', '/api/organization/api-keys', { name: 'mine' });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).code).toBe('role_forbidden');
    expect((await member.get('/api-keys')).status).toBe(403);

    const elsewhere = await api.tenant('Elsewhere');
    const theirKey = await api.db.prisma.apiKey.findFirstOrThrow({ where: { organizationId: elsewhere.organizationId } });
    const owner = await signedIn(api, await addPerson(api, tenant.organizationId, 'owner'));
    expect((await owner.api('DELETE', `/api/organization/api-keys/${theirKey.id}`)).status).toBe(404);
    expect((await api.call(elsewhere, 'GET', '/api/assistants')).status).toBe(200);
  });
});

describe('membership', () => {
  it('invites by link and mail with a role; the invitee joins once; removal ends their session and revokes their keys at once', async ({ api, tenant }) => {
    const owner = await signedIn(api, await addPerson(api, tenant.organizationId, 'owner'));
    const invited = await owner.api('POST', '/api/organization/invitations', { email: 'New.Person@Example.com', role: 'admin' });
    expect(invited.status).toBe(201);
    const { url, id } = JSON.parse(invited.body).data;
    expect(url).toMatch(/^http:\/\/localhost(:80)?\/join\?token=[\w-]{43}$/);
    expect(mailLog()).toContain(url);
    expect(mailLog()).toContain('To: new.person@example.com');
    const token = new URL(url).searchParams.get('token')!;
    expect(await api.db.prisma.invitation.count({ where: { tokenHash: token } })).toBe(0);

    const invitee = new BrowserSession(api.app);
    expect((await invitee.get(`/join?token=${token}`)).body).toContain('as admin');
    const joined = await invitee.post('/join', { token, name: 'New Person', password: 'a long enough password' });
    expect(joined.status).toBe(302);
    const me = JSON.parse((await invitee.api('GET', '/api/users/me')).body).data;
    expect(me).toMatchObject({ email: 'new.person@example.com', role: 'admin', organization_id: tenant.organizationId });
    // The link is spent.
    expect((await new BrowserSession(api.app).get(`/join?token=${token}`)).status).toBe(410);
    expect((await owner.api('DELETE', `/api/organization/invitations/${id}`)).status).toBe(404);

    await invitee.get('/api-keys');
    const key = JSON.parse((await invitee.api('POST', '/api/organization/api-keys', { name: 'theirs' })).body).data.key;
    expect((await api.app.inject({ method: 'GET', url: '/api/contacts', headers: { authorization: `Bearer ${key}` } })).statusCode).toBe(200);

    expect((await owner.api('DELETE', `/api/organization/members/${me.user_id}`)).status).toBe(200);
    expect((await invitee.get('/assistants')).location).toBe('/login?next=%2Fassistants');
    expect((await invitee.api('GET', '/api/users/me')).status).toBe(401);
    expect((await api.app.inject({ method: 'GET', url: '/api/contacts', headers: { authorization: `Bearer ${key}` } })).statusCode).toBe(401);
    // And they cannot sign in again.
    const again = new BrowserSession(api.app);
    await again.get('/login');
    expect((await again.post('/login', { email: 'new.person@example.com', password: 'a long enough password' })).status).toBe(401);
  });

  it('keeps an owner: the last owner can be neither removed nor demoted, by themselves or anyone', async ({ api }) => {
    const org = await api.tenant('One owner');
    // The bootstrap user is an owner; remove it so that exactly one owner with a password is left.
    await api.db.prisma.user.updateMany({ where: { organizationId: org.organizationId }, data: { role: 'member' } });
    const sole = await addPerson(api, org.organizationId, 'owner');
    const browser = await signedIn(api, sole);
    const leave = await browser.api('DELETE', `/api/organization/members/${sole.userId}`);
    expect(leave.status).toBe(409);
    expect(JSON.parse(leave.body).code).toBe('last_owner');
    expect((await browser.api('PATCH', `/api/organization/members/${sole.userId}`, { role: 'admin' })).status).toBe(409);

    const second = await addPerson(api, org.organizationId, 'owner');
    expect((await browser.api('PATCH', `/api/organization/members/${second.userId}`, { role: 'admin' })).status).toBe(200);
    expect((await browser.api('PATCH', `/api/organization/members/${second.userId}`, { role: 'owner' })).status).toBe(200);
    expect((await browser.api('DELETE', `/api/organization/members/${sole.userId}`)).status).toBe(200);
    expect((await browser.api('GET', '/api/users/me')).status).toBe(401);
  });

  it('refuses members an owner’s actions, and admins the owners’ roles', async ({ api, tenant }) => {
    const owner = await addPerson(api, tenant.organizationId, 'owner');
    const admin = await signedIn(api, await addPerson(api, tenant.organizationId, 'admin'));
    const memberPerson = await addPerson(api, tenant.organizationId, 'member');
    const member = await signedIn(api, memberPerson);

    for (const [method, url, body] of [
      ['POST', '/api/organization/invitations', { email: 'x@example.com', role: 'member' }],
      ['PATCH', `/api/organization/members/${owner.userId}`, { role: 'member' }],
      ['DELETE', `/api/organization/members/${owner.userId}`, undefined],
      ['POST', '/api/organization/api-keys', { name: 'k' }],
    ] as const) {
      const res = await member.api(method, url, body);
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(JSON.parse(res.body).code).toBe('role_forbidden');
    }
    expect((await admin.api('POST', '/api/organization/invitations', { email: 'boss@example.com', role: 'owner' })).status).toBe(403);
    expect((await admin.api('PATCH', `/api/organization/members/${owner.userId}`, { role: 'member' })).status).toBe(403);
    expect((await admin.api('DELETE', `/api/organization/members/${owner.userId}`)).status).toBe(403);
    expect((await admin.api('PATCH', `/api/organization/members/${memberPerson.userId}`, { role: 'admin' })).status).toBe(200);
    // Another organisation's person is not found, not forbidden.
    const elsewhere = await api.tenant('Elsewhere people');
    expect((await admin.api('DELETE', `/api/organization/members/${elsewhere.userId}`)).status).toBe(404);
    // A member may leave.
    const leaver = await signedIn(api, await addPerson(api, tenant.organizationId, 'member'));
    const leaverId = JSON.parse((await leaver.api('GET', '/api/users/me')).body).data.user_id;
    expect((await leaver.api('DELETE', `/api/organization/members/${leaverId}`)).status).toBe(200);
  });
});

describe('password reset', () => {
  it('mails a one-time link that sets the password once, ends every session, and tells nobody whether an email has an account', async ({ api, tenant }) => {
    const person = await addPerson(api, tenant.organizationId, 'member');
    const elsewhere = await signedIn(api, person);

    const browser = new BrowserSession(api.app);
    await browser.get('/forgot');
    const asked = await browser.post('/forgot', { email: person.email });
    const unknown = await browser.post('/forgot', { email: 'nobody-here@example.com' });
    expect(asked.status).toBe(200);
    expect(unknown.body.replace(/name="_csrf" value="[^"]+"/, '')).toBe(asked.body.replace(/name="_csrf" value="[^"]+"/, ''));
    expect(mailLog()).not.toContain('nobody-here@example.com');
    const link = [
      ...mailLog().matchAll(new RegExp(`To: ${person.email.replace(/[.+]/g, '\\$&')}[\\s\\S]*?(http://\\S+/reset\\?token=[\\w-]+)`, 'g')),
    ].pop()![1]!;
    const token = new URL(link).searchParams.get('token')!;

    expect((await browser.get(`/reset?token=${token}`)).status).toBe(200);
    const set = await browser.post('/reset', { token, password: 'a brand new password' });
    expect(set.location).toBe('/login?reset=done');
    expect((await elsewhere.get('/profile')).status).toBe(302);

    const reused = await browser.post('/reset', { token, password: 'another new password' });
    expect(reused.status).toBe(410);
    expect((await browser.get(`/reset?token=${token}`)).status).toBe(410);
    await new BrowserSession(api.app).signIn(person.email, 'a brand new password');
  });
});

describe('the profile', () => {
  it('changes name, email (with the current password) and password; a new password ends the other sessions; sessions are listed and ended', async ({
    api,
    tenant,
  }) => {
    const person = await addPerson(api, tenant.organizationId, 'member');
    const browser = await signedIn(api, person);
    const other = await signedIn(api, person);
    const sessions = JSON.parse((await browser.api('GET', '/api/users/me/sessions')).body).data;
    expect(sessions).toHaveLength(2);
    expect(sessions.filter((s: { current: boolean }) => s.current)).toHaveLength(1);

    expect((await browser.api('PATCH', '/api/users/me', { email: 'changed@example.com' })).status).toBe(401);
    const renamed = await browser.api('PATCH', '/api/users/me', { name: 'Renamed', email: 'changed@example.com', current_password: person.password });
    expect(JSON.parse(renamed.body).data).toMatchObject({ name: 'Renamed', email: 'changed@example.com' });

    const page = await browser.post('/profile/password', { current_password: person.password, new_password: 'short' });
    expect(page.status).toBe(422);
    expect(page.body).toMatch(/id="f-password-new_password-error">Use at least 10 characters./);
    expect((await browser.api('PUT', '/api/users/me/password', { current_password: person.password, new_password: 'a changed password' })).status).toBe(200);
    expect((await other.api('GET', '/api/users/me')).status).toBe(401);
    expect((await browser.api('GET', '/api/users/me')).status).toBe(200);

    const third = await signedIn(api, { email: 'changed@example.com', password: 'a changed password' });
    const thirdId = JSON.parse((await browser.api('GET', '/api/users/me/sessions')).body).data.find((s: { current: boolean }) => !s.current).id;
    expect((await browser.api('DELETE', `/api/users/me/sessions/${thirdId}`)).status).toBe(200);
    expect((await third.api('GET', '/api/users/me')).status).toBe(401);
  });
});
