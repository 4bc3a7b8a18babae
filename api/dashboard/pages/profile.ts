import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { idParam } from '../../../lib/zod/query.js';
import {
  changePassword,
  endOwnSession,
  endSessionsOf,
  getProfile,
  listSessions,
  PasswordChange,
  ProfileUpdate,
  updateProfile,
} from '../../../modules/organizations/index.js';
import { field, formError, formErrors, formValues, parseForm, type FieldErrors } from '../forms.js';
import { html, type Html } from '../html.js';
import { csrfField, dashboardPage, sendPage } from '../layout.js';
import { when } from '../format.js';
import type { DashboardDeps } from '../deps.js';
import { passkeyCard } from './passkeys.js';

const session = { auth: 'session' as const };

export function registerProfilePages(app: FastifyInstance, deps: DashboardDeps): void {
  async function render(
    request: FastifyRequest,
    extra: { profileErrors?: FieldErrors; passwordErrors?: FieldErrors; notice?: string; values?: Record<string, string> } = {},
  ): Promise<Html> {
    const me = request.signedIn!;
    const [profile, sessions] = await Promise.all([getProfile(deps.prisma, me.userId), listSessions(deps.prisma, me.userId, me.sessionId)]);
    const values = { name: profile.name ?? '', email: profile.email, ...extra.values };
    const pe = extra.profileErrors;
    const pw = extra.passwordErrors;
    return html`${extra.notice ? html`<div class="notice" role="status">${extra.notice}</div>` : ''}
<p>${profile.organization_name} · <span class="badge">${profile.role}</span></p>
<form method="post" action="/profile" class="card"><h2>Name and email</h2>${csrfField(request)}${formError(pe)}
${field({ name: 'name', label: 'Name', value: values.name, errors: pe, autocomplete: 'name' })}
${field({ name: 'email', label: 'Email', type: 'email', value: values.email, errors: pe, autocomplete: 'email' })}
${field({ name: 'current_password', label: 'Current password', type: 'password', errors: pe, autocomplete: 'current-password', hint: 'needed to change your email' })}
<div class="actions"><button type="submit">Save</button></div></form>
<form method="post" action="/profile/password" class="card"><h2>Password</h2>${csrfField(request)}${formError(pw)}
${field({ form: 'password', name: 'current_password', label: 'Current password', type: 'password', errors: pw, required: true, autocomplete: 'current-password' })}
${field({ form: 'password', name: 'new_password', label: 'New password', type: 'password', errors: pw, required: true, autocomplete: 'new-password', hint: 'at least 10 characters; your other sessions end' })}
<div class="actions"><button type="submit">Change password</button></div></form>
${await passkeyCard(request, deps)}
<h2>Sessions</h2>
<div class="table-wrap"><table><thead><tr><th>Browser</th><th>Signed in</th><th>Last active</th><th><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${sessions.map(
      (
        s,
      ) => html`<tr><td>${s.user_agent ?? 'unknown'}${s.current ? html` <span class="badge">this one</span>` : ''}</td><td>${when(s.created_at)}</td><td>${when(s.last_seen_at)}</td>
<td>${s.current ? '' : html`<form method="post" action="/profile/sessions/${s.id}/end" class="inline">${csrfField(request)}<button class="danger" type="submit">Sign out</button></form>`}</td></tr>`,
    )}</tbody></table></div>
<form method="post" action="/profile/sessions/end-others">${csrfField(request)}<button class="secondary" type="submit"${sessions.length < 2 ? html` disabled` : ''}>Sign out everywhere else</button></form>`;
  }
  const send = async (request: FastifyRequest, reply: import('fastify').FastifyReply, extra: Parameters<typeof render>[1], status = 200) =>
    sendPage(reply, dashboardPage(request, 'Profile', await render(request, extra)), status);

  app.get('/profile', { config: session }, async (request, reply) => {
    const passkey = (request.query as Record<string, unknown>).passkey;
    return send(request, reply, passkey === 'added' ? { notice: 'Passkey added.' } : passkey === 'removed' ? { notice: 'Passkey removed.' } : {});
  });

  app.post('/profile', { config: session }, async (request, reply) => {
    const values = formValues(request.body);
    const parsed = parseForm(ProfileUpdate, values);
    if (!parsed.ok) return send(request, reply, { profileErrors: parsed.errors, values }, 422);
    try {
      await updateProfile(deps.prisma, request.signedIn!.userId, parsed.data);
    } catch (error) {
      return send(request, reply, { profileErrors: formErrors(error), values }, 409);
    }
    return send(request, reply, { notice: 'Saved.' });
  });

  app.post('/profile/password', { config: session }, async (request, reply) => {
    const parsed = parseForm(PasswordChange, formValues(request.body));
    if (!parsed.ok) return send(request, reply, { passwordErrors: parsed.errors }, 422);
    const me = request.signedIn!;
    try {
      await changePassword(deps.prisma, me.userId, me.sessionId, parsed.data.current_password, parsed.data.new_password);
    } catch (error) {
      return send(request, reply, { passwordErrors: formErrors(error) }, 409);
    }
    return send(request, reply, { notice: 'Password changed. Your other sessions were signed out.' });
  });

  app.post('/profile/sessions/end-others', { config: session }, async (request, reply) => {
    const me = request.signedIn!;
    const ended = await endSessionsOf(deps.prisma, me.userId, me.sessionId);
    return send(request, reply, { notice: `Signed out of ${ended} other ${ended === 1 ? 'session' : 'sessions'}.` });
  });

  app.post('/profile/sessions/:session_id/end', { config: session, schema: { params: z.object({ session_id: idParam }) } }, async (request, reply) => {
    await endOwnSession(deps.prisma, request.signedIn!.userId, (request.params as { session_id: number }).session_id);
    return send(request, reply, { notice: 'That session was signed out.' });
  });
}
