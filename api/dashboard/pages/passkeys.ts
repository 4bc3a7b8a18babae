import { isIP } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError } from '../../../lib/errors.js';
import { idParam } from '../../../lib/zod/query.js';
import { AuthenticationAnswer, deletePasskey, listPasskeys, passkeySignInOptions, signInWithPasskey } from '../../../modules/organizations/index.js';
import { relyingParty } from '../../auth/relying-party.js';
import { STATUS_OF } from '../../http/error-handler.js';
import { csrfField } from '../layout.js';
import { html, type Html } from '../html.js';
import { when } from '../format.js';
import { field } from '../forms.js';
import type { DashboardDeps } from '../deps.js';
import { safeNext, startSession } from './account.js';

// Passkeys in the dashboard: the profile's list with "Add a passkey", and "Sign in with a passkey" on the sign-in page.
// Both ceremonies run in the page's script (assets/passkeys.js, on the WebAuthn helper assets/webauthn.js): adding
// one through the session-only API (`/api/users/me/passkeys`), signing in through the two visitor routes here, which
// answer JSON to that script. The sign-in ends as a password sign-in does: a new session in a new cookie.

const visitor = { auth: 'visitor' as const };

/** Why this page cannot add a passkey, or null when it can. */
function unavailableReason(request: FastifyRequest, deps: DashboardDeps): string | null {
  let rpId: string;
  try {
    rpId = relyingParty(request, deps.publicUrl).id;
  } catch (error) {
    if (error instanceof AppError) return error.message;
    throw error;
  }
  // Browsers bind passkeys to a host name, never to an address.
  return isIP(rpId.replace(/^\[|\]$/g, '')) ? 'Passkeys need a host name: open the dashboard at http://localhost rather than at an IP address' : null;
}

const scripts = html`<script src="/assets/webauthn.js" defer></script><script src="/assets/passkeys.js" defer></script>`;

/** The profile's passkeys: each with when it was added and last used, a way to remove it, and a way to add one. */
export async function passkeyCard(request: FastifyRequest, deps: DashboardDeps): Promise<Html> {
  const passkeys = await listPasskeys(deps.prisma, request.signedIn!.userId);
  const reason = unavailableReason(request, deps);
  return html`<section class="card" aria-labelledby="passkeys-heading"><h2 id="passkeys-heading">Passkeys</h2>
<p class="hint">Sign in with your fingerprint, face or security key instead of your password.</p>
${
  passkeys.length === 0
    ? html`<p class="empty">No passkeys yet.</p>`
    : html`<div class="table-wrap"><table><thead><tr><th>Name</th><th>Added</th><th>Last used</th><th><span class="visually-hidden">Actions</span></th></tr></thead><tbody>${passkeys.map(
        (p) => html`<tr><td>${p.name}</td><td>${when(p.created_at)}</td><td>${p.last_used_at ? when(p.last_used_at) : 'never'}</td>
<td><form method="post" action="/profile/passkeys/${p.id}/remove" class="inline" data-confirm="Remove the passkey ${p.name}?">${csrfField(request)}<button class="danger" type="submit">Remove</button></form></td></tr>`,
      )}</tbody></table></div>`
}
${
  reason
    ? html`<p class="notice">${reason}.</p>`
    : html`<form data-passkey-add>${csrfField(request)}
${field({ form: 'passkey', name: 'name', label: 'Name of a new passkey', hint: 'such as "Work laptop"', required: true, autocomplete: 'off' })}
<div class="error" role="alert" data-passkey-error></div>
<div class="actions"><button type="submit">Add a passkey</button></div></form>${scripts}`
}</section>`;
}

/** The sign-in page's passkey button; shown by the script only where the browser can use passkeys. */
export function passkeySignIn(request: FastifyRequest, deps: DashboardDeps, next: string): Html {
  if (unavailableReason(request, deps)) return html``;
  return html`<div class="card" data-passkey-sign-in data-next="${next}" hidden><button type="button" class="secondary">Sign in with a passkey</button>
<div class="error" role="alert" data-passkey-error></div></div>${scripts}`;
}

/** A failed step of the script's ceremony, said to it as JSON. */
function answerError(reply: FastifyReply, error: unknown): FastifyReply {
  if (!(error instanceof AppError)) throw error;
  return reply.code(STATUS_OF[error.kind]).send({ success: false, code: error.code, message: error.message });
}

export function registerPasskeyPages(app: FastifyInstance, deps: DashboardDeps): void {
  app.post('/login/passkey/options', { config: visitor }, async (request, reply) => {
    try {
      return reply.send({ success: true, options: await passkeySignInOptions(deps.prisma, relyingParty(request, deps.publicUrl)) });
    } catch (error) {
      return answerError(reply, error);
    }
  });

  app.post(
    '/login/passkey',
    { config: visitor, schema: { body: z.object({ response: AuthenticationAnswer, next: z.string().max(2_000).optional() }) } },
    async (request, reply) => {
      const body = request.body as { response: z.infer<typeof AuthenticationAnswer>; next?: string };
      try {
        const person = await signInWithPasskey(deps.prisma, relyingParty(request, deps.publicUrl), body.response as never);
        await startSession(deps, request, reply, person);
        const next = safeNext(body.next);
        return reply.send({ success: true, redirect: next === '/' ? '/assistants' : next });
      } catch (error) {
        return answerError(reply, error);
      }
    },
  );

  app.post(
    '/profile/passkeys/:passkey_id/remove',
    { config: { auth: 'session' as const }, schema: { params: z.object({ passkey_id: idParam }) } },
    async (request, reply) => {
      await deletePasskey(deps.prisma, request.signedIn!.userId, (request.params as { passkey_id: number }).passkey_id);
      return reply.redirect('/profile?passkey=removed');
    },
  );
}
