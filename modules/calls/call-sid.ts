import crypto from 'node:crypto';

/** A call's public id: `CA` and 32 hex digits, the shape carriers use for theirs, unguessable. */
export function newCallSid(): string {
  return `CA${crypto.randomBytes(16).toString('hex')}`;
}
