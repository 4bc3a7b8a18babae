import { z } from 'zod';

// Requests and answers of passkeys. The browser's answers to a ceremony are passed to the WebAuthn library as they
// are; their shape is checked here only as far as the library needs (strings where it decodes base64url), and any
// answer it cannot verify is the same 401.

const Base64Url = z
  .string()
  .max(16_384)
  .regex(/^[A-Za-z0-9_-]*={0,2}$/, 'Expected base64url');
const Extensions = z.record(z.string(), z.unknown());

/** What every answer of a ceremony has besides its `response`. */
const Credential = {
  id: Base64Url.min(1),
  rawId: Base64Url.min(1),
  type: z.literal('public-key'),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: Extensions,
};

export const RegistrationAnswer = z
  .object({
    ...Credential,
    response: z.looseObject({
      clientDataJSON: Base64Url,
      attestationObject: Base64Url,
      transports: z.array(z.string().max(40)).max(10).optional(),
    }),
  })
  .meta({ id: 'PasskeyRegistrationAnswer' });

export const PasskeyCreate = z
  .strictObject({
    name: z.string().trim().min(1, 'Name the passkey, such as "Work laptop"').max(100),
    response: RegistrationAnswer.describe("The browser's answer to `navigator.credentials.create()` with the options, as JSON"),
  })
  .meta({ id: 'PasskeyCreate' });

export const AuthenticationAnswer = z
  .object({
    ...Credential,
    response: z.looseObject({
      clientDataJSON: Base64Url,
      authenticatorData: Base64Url,
      signature: Base64Url,
      userHandle: Base64Url.optional(),
    }),
  })
  .meta({ id: 'PasskeyAuthenticationAnswer' });

export const PasskeyItem = z
  .object({ id: z.int(), name: z.string(), created_at: z.iso.datetime(), last_used_at: z.iso.datetime().nullable() })
  .meta({ id: 'Passkey' });

/** The options a browser passes to `navigator.credentials`, as the WebAuthn JSON encoding has them. */
export const CeremonyOptions = z.looseObject({ challenge: z.string() }).meta({ id: 'PasskeyCeremonyOptions' });
