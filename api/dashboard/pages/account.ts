import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  acceptInvitation,
  createSession,
  endSession,
  findInvitation,
  InvitationAccept,
  isResetUsable,
  isSetUp,
  type Person,
  ResetConfirm,
  resetPassword,
  ResetRequest,
  setUpOrganization,
  SetupRequest,
  signIn,
  SignInRequest,
} from '../../../modules/organizations/index.js';
import { clearSessionCookie, readCookie, setSessionCookie } from '../../auth/cookies.js';
import { field, formError, formErrors, parseForm, type FieldErrors } from '../forms.js';
import { html, type Html } from '../html.js';
import { csrfField, sendPage, visitorPage } from '../layout.js';
import { mailResetLink } from '../links.js';
import type { DashboardDeps } from '../deps.js';
import { passkeySignIn } from './passkeys.js';

// Signing in and out, first-run setup, password reset and joining by invitation: the pages of someone not signed in.

const visitor = { auth: 'visitor' as const };

/** Where to go after signing in: a path of this dashboard only, never another site (`//evil.example`). */
export function safeNext(next: unknown): string {
  return typeof next === 'string' && /^\/(?!\/)[\w\-/?=&%.]*$/.test(next) && !next.includes('\\') ? next : '/';
}

/**
 * Starts a new session for `person`: always a new token (the one a browser arrived with, if any, is ended, so a token
 * planted before sign-in is worthless after it), in the session cookie.
 */
export async function startSession(deps: DashboardDeps, request: FastifyRequest, reply: FastifyReply, person: Person): Promise<void> {
  const previous = readCookie(request, 'session', request.secureContext);
  if (previous) await endSession(deps.prisma, previous);
  const { token, expiresAt } = await createSession(deps.prisma, {
    userId: person.id,
    organizationId: person.organizationId,
    userAgent: request.headers['user-agent'],
  });
  setSessionCookie(reply, token, expiresAt, request.secureContext);
}

function setupForm(request: FastifyRequest, values: Record<string, unknown> = {}, errors: FieldErrors = {}): Html {
  return html`<p>Create your organisation and its owner account. Everyone else joins by invitation.</p>
<form method="post" action="/setup" class="card">${csrfField(request)}${formError(errors)}
${field({ name: 'organization_name', label: 'Organisation name', value: values.organization_name as string, errors, required: true, autocomplete: 'organization' })}
${field({ name: 'name', label: 'Your name', value: values.name as string, errors, required: true, autocomplete: 'name' })}
${field({ name: 'email', label: 'Email', type: 'email', value: values.email as string, errors, required: true, autocomplete: 'email' })}
${field({ name: 'password', label: 'Password', type: 'password', errors, required: true, autocomplete: 'new-password', hint: 'at least 10 characters' })}
<div class="actions"><button type="submit">Create organisation</button></div></form>`;
}

function signInForm(request: FastifyRequest, next: string, values: Record<string, unknown> = {}, errors: FieldErrors = {}, notice?: string): Html {
  return html`${notice ? html`<div class="notice" role="status">${notice}</div>` : ''}
<form method="post" action="/login" class="card">${csrfField(request)}${formError(errors)}
<input type="hidden" name="next" value="${next}">
${field({ name: 'email', label: 'Email', type: 'email', value: values.email as string, errors, required: true, autocomplete: 'username' })}
${field({ name: 'password', label: 'Password', type: 'password', errors, required: true, autocomplete: 'current-password' })}
<div class="actions"><button type="submit">Sign in</button><a href="/forgot">Forgot your password?</a></div></form>`;
}

export function registerAccountPages(app: FastifyInstance, deps: DashboardDeps): void {
  app.get('/', { config: visitor }, async (request, reply) => {
    if (!(await isSetUp(deps.prisma))) return reply.redirect('/setup');
    return reply.redirect(request.signedIn ? '/assistants' : '/login');
  });

  app.get('/setup', { config: visitor }, async (request, reply) => {
    if (await isSetUp(deps.prisma)) return reply.redirect('/login');
    return sendPage(reply, visitorPage('Welcome', setupForm(request)));
  });

  app.post('/setup', { config: visitor }, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const parsed = parseForm(SetupRequest, { organization_name: body.organization_name, name: body.name, email: body.email, password: body.password });
    if (!parsed.ok) return sendPage(reply, visitorPage('Welcome', setupForm(request, body, parsed.errors)), 422);
    let person: Person;
    try {
      person = await setUpOrganization(deps.prisma, parsed.data);
    } catch (error) {
      return sendPage(reply, visitorPage('Welcome', setupForm(request, body, formErrors(error))), 409);
    }
    await startSession(deps, request, reply, person);
    // Where a new team starts: its first assistant (the empty list says how); keys wait until code calls the API.
    return reply.redirect('/assistants');
  });

  app.get('/login', { config: visitor }, async (request, reply) => {
    if (!(await isSetUp(deps.prisma))) return reply.redirect('/setup');
    const query = request.query as Record<string, unknown>;
    // Signed in already (a bookmark, the back button): straight on.
    if (request.signedIn) return reply.redirect(safeNext(query.next) === '/' ? '/assistants' : safeNext(query.next));
    const notice = query.reset === 'done' ? 'Your password is set: sign in with it.' : query.signed_out ? 'You are signed out.' : undefined;
    const next = safeNext(query.next);
    return sendPage(reply, visitorPage('Sign in', html`${signInForm(request, next, {}, {}, notice)}${passkeySignIn(request, deps, next)}`));
  });

  app.post('/login', { config: visitor }, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const next = safeNext(body.next);
    const parsed = parseForm(SignInRequest, { email: body.email, password: body.password });
    if (!parsed.ok) return sendPage(reply, visitorPage('Sign in', signInForm(request, next, body, parsed.errors)), 422);
    const { email, password } = parsed.data;
    await deps.signInLimit.check(email, request.ip);
    let person: Person;
    try {
      person = await signIn(deps.prisma, email, password);
    } catch (error) {
      await deps.signInLimit.failed(email, request.ip);
      return sendPage(reply, visitorPage('Sign in', signInForm(request, next, body, formErrors(error))), 401);
    }
    await deps.signInLimit.succeeded(email);
    await startSession(deps, request, reply, person);
    return reply.redirect(next === '/' ? '/assistants' : next);
  });

  // A form (POST with the anti-forgery token), not a link: another site cannot sign a person out.
  app.post('/logout', { config: { auth: 'session' as const } }, async (request, reply) => {
    const token = readCookie(request, 'session', request.secureContext);
    if (token) await endSession(deps.prisma, token);
    clearSessionCookie(reply, request.secureContext);
    return reply.redirect('/login?signed_out=1');
  });

  const forgotForm = (request: FastifyRequest, errors: FieldErrors = {}, sent = false) =>
    html`${sent ? html`<div class="notice" role="status">If an account has this email, a link to set a new password is on its way. It works once, within an hour.</div>` : ''}
<form method="post" action="/forgot" class="card">${csrfField(request)}${formError(errors)}
${field({ name: 'email', label: 'Email', type: 'email', errors, required: true, autocomplete: 'email' })}
<div class="actions"><button type="submit">Send a reset link</button><a href="/login">Back to sign in</a></div></form>`;

  app.get('/forgot', { config: visitor }, async (request, reply) => sendPage(reply, visitorPage('Reset your password', forgotForm(request))));

  app.post('/forgot', { config: visitor }, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const parsed = parseForm(ResetRequest, { email: body.email });
    if (!parsed.ok) return sendPage(reply, visitorPage('Reset your password', forgotForm(request, parsed.errors)), 422);
    // The same limit as sign-in: a reset request must not become a way to flood someone's mailbox.
    await deps.signInLimit.check(parsed.data.email, request.ip);
    await deps.signInLimit.failed(parsed.data.email, request.ip);
    await mailResetLink(deps.prisma, deps.mail, request, deps.publicUrl, parsed.data.email);
    return sendPage(reply, visitorPage('Reset your password', forgotForm(request, {}, true)));
  });

  const resetForm = (request: FastifyRequest, token: string, errors: FieldErrors = {}) =>
    html`<form method="post" action="/reset" class="card">${csrfField(request)}${formError(errors)}
<input type="hidden" name="token" value="${token}">
${field({ name: 'password', label: 'New password', type: 'password', errors, required: true, autocomplete: 'new-password', hint: 'at least 10 characters' })}
<div class="actions"><button type="submit">Set password</button></div></form>`;
  const spent = (what: string, href: string, label: string) => html`<div class="notice bad" role="alert">${what}</div><p><a href="${href}">${label}</a></p>`;

  app.get('/reset', { config: visitor }, async (request, reply) => {
    const token = String((request.query as Record<string, unknown>).token ?? '');
    if (!token || token.length > 100 || !(await isResetUsable(deps.prisma, token))) {
      return sendPage(reply, visitorPage('Reset your password', spent('This reset link was used or has expired.', '/forgot', 'Ask for a new link')), 410);
    }
    return sendPage(reply, visitorPage('Choose a new password', resetForm(request, token)));
  });

  app.post('/reset', { config: visitor }, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const token = typeof body.token === 'string' ? body.token : '';
    const parsed = parseForm(ResetConfirm, { token, password: body.password });
    if (!parsed.ok) return sendPage(reply, visitorPage('Choose a new password', resetForm(request, token, parsed.errors)), 422);
    try {
      await resetPassword(deps.prisma, parsed.data.token, parsed.data.password);
    } catch (error) {
      return sendPage(
        reply,
        visitorPage('Reset your password', spent(formErrors(error)[''] ?? 'This link cannot be used.', '/forgot', 'Ask for a new link')),
        410,
      );
    }
    return reply.redirect('/login?reset=done');
  });

  const joinForm = (
    request: FastifyRequest,
    token: string,
    invitation: { email: string; role: string; organization_name: string },
    values: Record<string, unknown> = {},
    errors: FieldErrors = {},
  ) =>
    html`<p>Join <strong>${invitation.organization_name}</strong> as ${invitation.role}, with the email ${invitation.email}.</p>
<form method="post" action="/join" class="card">${csrfField(request)}${formError(errors)}
<input type="hidden" name="token" value="${token}">
${field({ name: 'name', label: 'Your name', value: values.name as string, errors, required: true, autocomplete: 'name' })}
${field({ name: 'password', label: 'Choose a password', type: 'password', errors, required: true, autocomplete: 'new-password', hint: 'at least 10 characters' })}
<div class="actions"><button type="submit">Join</button></div></form>`;
  const usedInvitation = () => spent('This invitation was used, revoked or has expired: ask for a new one.', '/login', 'Sign in');

  app.get('/join', { config: visitor }, async (request, reply) => {
    const token = String((request.query as Record<string, unknown>).token ?? '');
    const invitation = token && token.length <= 100 ? await findInvitation(deps.prisma, token) : null;
    if (!invitation) return sendPage(reply, visitorPage('Invitation', usedInvitation()), 410);
    return sendPage(reply, visitorPage('Invitation', joinForm(request, token, invitation)));
  });

  app.post('/join', { config: visitor }, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const token = typeof body.token === 'string' ? body.token : '';
    const invitation = token && token.length <= 100 ? await findInvitation(deps.prisma, token) : null;
    if (!invitation) return sendPage(reply, visitorPage('Invitation', usedInvitation()), 410);
    const parsed = parseForm(InvitationAccept, { token, name: body.name, password: body.password });
    if (!parsed.ok) return sendPage(reply, visitorPage('Invitation', joinForm(request, token, invitation, body, parsed.errors)), 422);
    let person: Person;
    try {
      person = await acceptInvitation(deps.prisma, token, parsed.data);
    } catch (error) {
      return sendPage(reply, visitorPage('Invitation', joinForm(request, token, invitation, body, formErrors(error))), 409);
    }
    await startSession(deps, request, reply, person);
    return reply.redirect('/assistants');
  });
}
