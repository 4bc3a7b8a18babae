import { describe, expect } from 'vitest';
import { apiTest } from '../helpers/fixtures.js';
import { BrowserSession } from '../helpers/browser-session.js';
import { addPerson } from '../helpers/people.js';
import { until } from '../helpers/until.js';
import { startFakeSmtp, type FakeSmtp } from '../fakes/smtp-server.js';
import { smtpMailTransport } from '../../lib/mail.js';

// With SMTP_URL set, the dashboard's mail goes to that server: here a fake one on loopback.

const withSmtp = apiTest
  .extend('smtp', { scope: 'file' }, async ({}, { onCleanup }): Promise<FakeSmtp> => {
    const smtp = await startFakeSmtp();
    onCleanup(() => smtp.close());
    return smtp;
  })
  .extend('apiOptions', { scope: 'file' }, async ({ smtp }) => ({ mail: smtpMailTransport(smtp.url, 'Voice <no-reply@voice.example>') }));

describe('mail by SMTP', () => {
  withSmtp('sends an invitation with its link, and a password reset link, from MAIL_FROM to the person', async ({ api, tenant, smtp }) => {
    const owner = await addPerson(api, tenant.organizationId, 'owner');
    const browser = new BrowserSession(api.app);
    await browser.signIn(owner.email, owner.password);
    const invited = JSON.parse((await browser.api('POST', '/api/organization/invitations', { email: 'guest@example.com', role: 'member' })).body).data;
    const invitation = await until(() => smtp.mails.find((m) => m.to.includes('guest@example.com')), { message: 'the invitation is sent' });
    expect(invitation.from).toBe('no-reply@voice.example');
    expect(invitation.data).toContain(`\n${invited.url}\n`);

    const visitor = new BrowserSession(api.app);
    await visitor.get('/forgot');
    await visitor.post('/forgot', { email: owner.email });
    const reset = await until(() => smtp.mails.find((m) => m.to.includes(owner.email)), { message: 'the reset link is sent' });
    expect(reset.data).toMatch(/Subject: Reset your password/);
    expect(reset.data).toMatch(/\/reset\?token=[\w-]{43}\n/);
  });
});
