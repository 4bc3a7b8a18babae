import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { idParam } from '../../../lib/zod/query.js';
import {
  assignable,
  can,
  changeRole,
  InvitationCreate,
  listInvitations,
  listMembers,
  removeMember,
  revokeInvitation,
  RoleChange,
  ROLES,
} from '../../../modules/organizations/index.js';
import { field, formError, formErrors, parseForm, selectField, type FieldErrors } from '../forms.js';
import { html, type Html } from '../html.js';
import { csrfField, dashboardPage, sendPage } from '../layout.js';
import { inviteAndMail } from '../links.js';
import { when } from '../format.js';
import type { DashboardDeps } from '../deps.js';

const session = { auth: 'session' as const };
const UserParams = z.object({ user_id: idParam });

export function registerMemberPages(app: FastifyInstance, deps: DashboardDeps): void {
  async function render(
    request: FastifyRequest,
    extra: { invited?: { email: string; url: string }; errors?: FieldErrors; notice?: string } = {},
  ): Promise<Html> {
    const me = request.signedIn!;
    const manage = can(me.role, 'manage_members');
    const [members, invitations] = await Promise.all([
      listMembers(deps.prisma, me.organizationId),
      manage ? listInvitations(deps.prisma, me.organizationId) : [],
    ]);
    const grantable = ROLES.filter((r) => assignable(me.role, r));
    const rows = members.map((m) => {
      const mine = m.user_id === me.userId;
      const editable = manage && assignable(me.role, m.role);
      const roleCell = editable
        ? html`<form method="post" action="/members/${m.user_id}/role" class="role-form">${csrfField(request)}<label class="visually-hidden" for="role-${m.user_id}">Role of ${m.email}</label><select id="role-${m.user_id}" name="role">${grantable.map((r) => html`<option${r === m.role ? html` selected` : ''}>${r}</option>`)}</select><button class="secondary" type="submit">Change</button></form>`
        : html`<span class="badge">${m.role}</span>`;
      const remove =
        editable || mine
          ? html`<form method="post" action="/members/${m.user_id}/remove" class="inline">${csrfField(request)}<button class="danger" type="submit" data-confirm="${mine ? 'Leave the organisation? You will be signed out.' : `Remove ${m.email}? They are signed out and their API keys are revoked at once.`}">${mine ? 'Leave' : 'Remove'}</button></form>`
          : '';
      return html`<tr><td class="person">${m.name ?? ''}${mine ? html` <span class="badge off">you</span>` : ''}<br><span class="muted">${m.email}</span></td><td>${roleCell}</td><td class="hide-phone">${when(m.created_at)}</td><td>${remove}</td></tr>`;
    });
    const invited = extra.invited
      ? html`<div class="secret" role="status"><strong>Invitation for ${extra.invited.email}</strong> — mailed to them; you can also hand them this link (it works once, for 7 days):
<code id="invite-link">${extra.invited.url}</code><button type="button" class="secondary" data-copy="invite-link">Copy link</button></div>`
      : '';
    const inviteForm = manage
      ? html`<form method="post" action="/members/invite" class="card">${csrfField(request)}${formError(extra.errors)}
<div class="row"><div>${field({ name: 'email', label: 'Invite by email', type: 'email', errors: extra.errors, required: true })}</div>
<div class="fit">${selectField({ name: 'role', label: 'Role', options: grantable, value: 'member', errors: extra.errors })}</div>
<div class="fit"><button type="submit">Invite</button></div></div></form>`
      : html`<p class="muted">Only owners and admins invite people and change roles.</p>${formError(extra.errors)}`;
    const pending =
      invitations.length > 0
        ? html`<h2>Pending invitations</h2><div class="table-wrap"><table><thead><tr><th>Email</th><th>Role</th><th>Expires</th><th><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${invitations.map(
            (i) =>
              html`<tr><td>${i.email}</td><td>${i.role}</td><td>${when(i.expires_at)}</td><td><form method="post" action="/members/invitations/${i.id}/revoke" class="inline">${csrfField(request)}<button class="danger" type="submit">Revoke</button></form></td></tr>`,
          )}</tbody></table></div>`
        : '';
    return html`${extra.notice ? html`<div class="notice" role="status">${extra.notice}</div>` : ''}${invited}${inviteForm}
<div class="table-wrap"><table><thead><tr><th>Person</th><th>Role</th><th class="hide-phone">Joined</th><th><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${rows}</tbody></table></div>${pending}
<p class="hint">Owners can do everything; admins everything but making, changing or removing owners; members use the product but do not manage API keys, people or billing.</p>`;
  }

  app.get('/members', { config: session }, async (request, reply) => sendPage(reply, dashboardPage(request, 'Members', await render(request))));

  app.post('/members/invite', { config: session }, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const parsed = parseForm(InvitationCreate, { email: body.email, role: body.role });
    if (!parsed.ok) return sendPage(reply, dashboardPage(request, 'Members', await render(request, { errors: parsed.errors })), 422);
    try {
      const invitation = await inviteAndMail(deps.prisma, deps.mail, request, deps.publicUrl, parsed.data);
      return sendPage(reply, dashboardPage(request, 'Members', await render(request, { invited: invitation })), 201);
    } catch (error) {
      return sendPage(reply, dashboardPage(request, 'Members', await render(request, { errors: formErrors(error) })), 409);
    }
  });

  app.post('/members/:user_id/role', { config: session, schema: { params: UserParams } }, async (request, reply) => {
    const parsed = parseForm(RoleChange, { role: (request.body as Record<string, unknown>)?.role });
    const userId = (request.params as { user_id: number }).user_id;
    // The select offers roles only; another value is a hand-made request, refused on the form.
    if (!parsed.ok)
      return sendPage(
        reply,
        dashboardPage(request, 'Members', await render(request, { errors: { '': `Role: ${parsed.errors.role ?? 'choose a role'}` } })),
        422,
      );
    try {
      await changeRole(deps.prisma, request.signedIn!, userId, parsed.data.role);
    } catch (error) {
      return sendPage(reply, dashboardPage(request, 'Members', await render(request, { errors: formErrors(error) })), 409);
    }
    return sendPage(reply, dashboardPage(request, 'Members', await render(request, { notice: 'Role changed.' })));
  });

  app.post('/members/:user_id/remove', { config: session, schema: { params: UserParams } }, async (request, reply) => {
    const me = request.signedIn!;
    const userId = (request.params as { user_id: number }).user_id;
    try {
      await removeMember(deps.prisma, me, userId);
      request.server.keyCache.clear();
    } catch (error) {
      return sendPage(reply, dashboardPage(request, 'Members', await render(request, { errors: formErrors(error) })), 409);
    }
    if (userId === me.userId) return reply.redirect('/login?signed_out=1');
    return sendPage(
      reply,
      dashboardPage(request, 'Members', await render(request, { notice: 'Removed: their sessions ended and their API keys were revoked.' })),
    );
  });

  app.post(
    '/members/invitations/:invitation_id/revoke',
    { config: session, schema: { params: z.object({ invitation_id: idParam }) } },
    async (request, reply) => {
      await revokeInvitation(deps.prisma, request.signedIn!, (request.params as { invitation_id: number }).invitation_id);
      return sendPage(reply, dashboardPage(request, 'Members', await render(request, { notice: 'Invitation revoked.' })));
    },
  );
}
