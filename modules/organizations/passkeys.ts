import crypto from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Db } from '../../prisma/client.js';
import { AppError, notFound } from '../../lib/errors.js';
import { personOf, type Person } from './accounts.js';

// Passkeys (WebAuthn): a person adds one while signed in, then signs in with it and no password. The server keeps
// each credential's public key and signature counter; the browser and the authenticator do the cryptography, checked
// here by @simplewebauthn/server. Each ceremony's challenge is a row used once: deleted as it is checked, and only
// within `CHALLENGE_TTL_MS`, so a captured answer cannot be played again. The relying party is the dashboard's own
// origin (its host is the RP ID), so a passkey made for one deployment answers no other.

/** Long enough for a person to find their phone or touch a key (browsers time out at about a minute). */
const CHALLENGE_TTL_MS = 5 * 60_000;
/** What a browser shows as the site the passkey is for. */
const RP_NAME = 'Voice assistant dashboard';

/** The relying party: the origin the dashboard is served at, and its host. */
export interface RelyingParty {
  origin: string;
  id: string;
}

export function relyingPartyOf(baseUrl: string): RelyingParty {
  const url = new URL(baseUrl);
  return { origin: url.origin, id: url.hostname };
}

export interface PasskeyItem {
  id: number;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

type Purpose = 'register' | 'sign_in';

async function storeChallenge(db: Db, challenge: string, purpose: Purpose, userId: number | null, now: Date): Promise<void> {
  // Expired challenges of ceremonies never finished go with each new one: the table stays the size of the last minutes.
  await db.webauthnChallenge.deleteMany({ where: { expiresAt: { lt: now } } });
  await db.webauthnChallenge.create({ data: { challenge, purpose, userId, expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS) } });
}

/** Uses up a challenge: true once, for a live one of this purpose and person. */
function consumeChallenge(db: Db, purpose: Purpose, userId: number | null, now: Date) {
  return async (challenge: string): Promise<boolean> => {
    const used = await db.webauthnChallenge.deleteMany({ where: { challenge, purpose, userId, expiresAt: { gt: now } } });
    return used.count === 1;
  };
}

const refused = () => new AppError('passkey_invalid', 'That passkey was not accepted: try again, or sign in with your password');

export async function passkeyRegistrationOptions(db: Db, userId: number, rp: RelyingParty, now = new Date()): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const user = await db.user.findUniqueOrThrow({ where: { id: userId }, include: { passkeys: { select: { credentialId: true, transports: true } } } });
  const options = await generateRegistrationOptions({
    rpName: RP_NAME,
    rpID: rp.id,
    userName: user.email,
    userDisplayName: user.name ?? user.email,
    // A random handle, not the row id: the authenticator keeps it, and it says nothing about the person.
    userID: crypto.randomBytes(16),
    attestationType: 'none',
    // The same authenticator twice is refused by the browser.
    excludeCredentials: user.passkeys.map((p) => ({ id: p.credentialId, transports: p.transports as AuthenticatorTransport[] })),
    // Discoverable, so that signing in needs no email first.
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
  await storeChallenge(db, options.challenge, 'register', userId, now);
  return options;
}

export async function registerPasskey(
  db: Db,
  userId: number,
  rp: RelyingParty,
  input: { name: string; response: RegistrationResponseJSON },
  now = new Date(),
): Promise<PasskeyItem> {
  let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verified = await verifyRegistrationResponse({
      response: input.response,
      expectedChallenge: consumeChallenge(db, 'register', userId, now),
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: false,
    });
  } catch {
    throw refused();
  }
  if (!verified.verified || !verified.registrationInfo) throw refused();
  const { credential } = verified.registrationInfo;
  if (await db.passkey.findUnique({ where: { credentialId: credential.id }, select: { id: true } })) {
    throw new AppError('conflict', 'This passkey is registered already');
  }
  const row = await db.passkey.create({
    data: {
      userId,
      credentialId: credential.id,
      publicKey: Buffer.from(credential.publicKey),
      counter: BigInt(credential.counter),
      transports: credential.transports ?? [],
      name: input.name,
      createdAt: now,
    },
  });
  return itemOf(row);
}

export async function listPasskeys(db: Db, userId: number): Promise<PasskeyItem[]> {
  const rows = await db.passkey.findMany({ where: { userId }, orderBy: { id: 'asc' } });
  return rows.map(itemOf);
}

/** Removes one of the person's own passkeys; another person's is "not found". */
export async function deletePasskey(db: Db, userId: number, id: number): Promise<void> {
  if ((await db.passkey.deleteMany({ where: { id, userId } })).count === 0) throw notFound('Passkey');
}

export async function passkeySignInOptions(db: Db, rp: RelyingParty, now = new Date()): Promise<PublicKeyCredentialRequestOptionsJSON> {
  // No allowCredentials: the browser offers the passkeys it holds for this site, so no email is asked first.
  const options = await generateAuthenticationOptions({ rpID: rp.id, userVerification: 'preferred' });
  await storeChallenge(db, options.challenge, 'sign_in', null, now);
  return options;
}

/** The person a passkey signs in; the same refusal for an unknown passkey, a bad signature and a used challenge. */
export async function signInWithPasskey(db: Db, rp: RelyingParty, response: AuthenticationResponseJSON, now = new Date()): Promise<Person> {
  const passkey = await db.passkey.findUnique({ where: { credentialId: response.id }, include: { user: true } });
  // The challenge is used up even for an unknown passkey, so an answer is never worth sending twice.
  const consume = consumeChallenge(db, 'sign_in', null, now);
  if (!passkey || passkey.user.removedAt) {
    await consume(challengeOf(response));
    throw refused();
  }
  let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: consume,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: passkey.credentialId,
        publicKey: new Uint8Array(passkey.publicKey),
        counter: Number(passkey.counter),
        transports: passkey.transports as AuthenticatorTransport[],
      },
      requireUserVerification: false,
    });
  } catch {
    throw refused();
  }
  if (!verified.verified) throw refused();
  // A counter that does not move forward would mean a cloned authenticator; the library refuses it. Many passkeys
  // always send 0, which it allows.
  await db.passkey.update({ where: { id: passkey.id }, data: { counter: BigInt(verified.authenticationInfo.newCounter), lastUsedAt: now } });
  return personOf(passkey.user);
}

function challengeOf(response: AuthenticationResponseJSON): string {
  try {
    const clientData = JSON.parse(Buffer.from(response.response.clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof clientData.challenge === 'string' ? clientData.challenge : '';
  } catch {
    return '';
  }
}

function itemOf(row: { id: number; name: string; createdAt: Date; lastUsedAt: Date | null }): PasskeyItem {
  return { id: row.id, name: row.name, created_at: row.createdAt.toISOString(), last_used_at: row.lastUsedAt?.toISOString() ?? null };
}
