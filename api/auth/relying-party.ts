import type { FastifyRequest } from 'fastify';
import { AppError } from '../../lib/errors.js';
import { isLoopbackHost } from '../http/public-url.js';
import { relyingPartyOf, type RelyingParty } from '../../modules/organizations/index.js';

// The origin passkeys are bound to. A passkey resists phishing because the browser signs the origin it is on and the
// server checks it against its own; that check is worthless if the server learns its origin from the request, which
// a phishing proxy writes. So it comes from PUBLIC_URL, and without it only from a loopback Host (a developer's own
// machine, which no proxy sits in front of); anywhere else passkeys are unavailable until PUBLIC_URL is set.

export function relyingParty(request: FastifyRequest, publicUrl: string | undefined): RelyingParty {
  if (publicUrl) return relyingPartyOf(publicUrl);
  const host = request.headers.host ?? '';
  if (isLoopbackHost(host)) return relyingPartyOf(`http://${host}`);
  throw new AppError('passkeys_unavailable', 'Passkeys need PUBLIC_URL set to the address people reach the dashboard at');
}
