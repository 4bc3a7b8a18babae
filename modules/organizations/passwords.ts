import { hash, verify } from '@node-rs/argon2';
import { z } from 'zod';

// argon2id with the library's defaults (19 MiB, 2 passes, 1 lane: OWASP's first recommended configuration): about
// 25 ms per hash on one core of the 2-core CI machine, so a login costs little and a stolen hash costs a guesser dearly.

/** 10 characters at least (NIST SP 800-63B asks 8; we ask a little more), 200 at most so hashing stays bounded. */
export const Password = z.string().min(10, 'Use at least 10 characters').max(200, 'Use at most 200 characters');

export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

// Verifying against this when the email is unknown makes a failed sign-in take the same time either way, so the
// response time does not tell which emails have accounts.
let decoy: Promise<string> | undefined;

/** Whether `password` matches `passwordHash`; with no hash (an unknown email, or no password set), false after the same work. */
export async function checkPassword(passwordHash: string | null | undefined, password: string): Promise<boolean> {
  if (!passwordHash) {
    decoy ??= hash('decoy password that matches nothing');
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(passwordHash, password).catch(() => false);
}
