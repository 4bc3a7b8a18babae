import { z } from 'zod';
import { idParam, MAX_ID } from '../../lib/zod/query.js';
import { e164 } from '../../lib/zod/e164.js';
import type { ValidationDetail } from '../../lib/errors.js';

// Phone connections (an organisation's SIP trunk at its carrier), managed numbers, outbound calls and web calls.

const sipAddress = z
  .string()
  .trim()
  .min(1)
  .max(253)
  .regex(/^(?!-)[A-Za-z0-9.-]+(:\d{1,5})?$/, 'Value must be a SIP host name or address, optionally with :port (e.g. sip.carrier.example:5060)')
  .describe("The carrier's SIP server: host or host:port, without the `sip:` scheme");

const livekitTrunkId = z.string().regex(/^ST_[A-Za-z0-9]+$/, 'Value must be a LiveKit SIP trunk id (ST_...)');

const twilioAccountSid = z
  .string()
  .trim()
  .regex(/^AC[0-9a-fA-F]{32}$/, 'Value must be a Twilio account SID: AC followed by 32 hex digits');
const carrierToken = z.string().min(1).max(200).describe('Write-only: responses show a mask');

/** The carriers a connection can be: a SIP trunk dialled through LiveKit, or a carrier's REST API and Media Streams. */
export const CONNECTION_KINDS = ['sip', 'twilio'] as const;
export type ConnectionKind = (typeof CONNECTION_KINDS)[number];

const SIP_ONLY = ['sip_address', 'sip_transport', 'username', 'password', 'livekit_trunk_id'] as const;
const CARRIER_ONLY = ['account_sid', 'auth_token'] as const;

const connectionFields = {
  name: z.string().trim().min(1).max(200),
  kind: z
    .enum(CONNECTION_KINDS)
    .default('sip')
    .describe(
      "`sip`: a SIP trunk at the carrier, dialled through LiveKit. `twilio`: the carrier's REST API dials and its Media Streams carry the audio, with no LiveKit",
    ),
  sip_address: sipAddress.optional().describe("`sip` only, required there: the carrier's SIP server, host or host:port, without the `sip:` scheme"),
  sip_transport: z.enum(['udp', 'tcp', 'tls']).optional().describe('`sip` only; default udp'),
  username: z.string().min(1).max(200).nullable().optional().describe('`sip` only'),
  password: z.string().min(1).max(200).nullable().optional().describe('`sip` only. Write-only: responses show a mask'),
  livekit_trunk_id: livekitTrunkId
    .nullable()
    .optional()
    .describe('`sip` only: an outbound trunk already provisioned in LiveKit; calls then use it instead of the address and credentials here'),
  account_sid: twilioAccountSid.optional().describe('`twilio` only, required there: the account SID (AC…)'),
  auth_token: carrierToken
    .optional()
    .describe("`twilio` only, required there: the account's auth token, which also signs its webhooks. Write-only: responses show a mask"),
};

/** Fields of the other kind are refused rather than ignored: a connection never holds what it does not use. */
export function kindIssues(kind: ConnectionKind, body: Record<string, unknown>, creating: boolean): ValidationDetail[] {
  const issues: ValidationDetail[] = [];
  for (const field of kind === 'sip' ? CARRIER_ONLY : SIP_ONLY) {
    if (body[field] !== undefined) issues.push({ loc: ['body', field], msg: `Not used by ${kind} connections`, type: 'extra_forbidden' });
  }
  if (creating) {
    for (const field of kind === 'sip' ? (['sip_address'] as const) : CARRIER_ONLY) {
      if (body[field] === undefined) issues.push({ loc: ['body', field], msg: `Field required for ${kind} connections`, type: 'missing' });
    }
  }
  return issues;
}

export const PhoneConnectionCreate = z
  .strictObject(connectionFields)
  .superRefine((body, ctx) => {
    for (const issue of kindIssues(body.kind, body, true))
      ctx.addIssue({ code: 'custom', path: issue.loc.slice(1), message: issue.msg, params: { type: issue.type } });
  })
  .meta({ id: 'PhoneConnectionCreate' });

export const PhoneConnectionUpdate = z
  .strictObject({
    name: connectionFields.name.optional(),
    sip_address: sipAddress.optional(),
    sip_transport: z.enum(['udp', 'tcp', 'tls']).optional(),
    username: z.string().min(1).max(200).nullable().optional(),
    password: z.string().min(1).max(200).nullable().optional(),
    livekit_trunk_id: livekitTrunkId.nullable().optional(),
    account_sid: twilioAccountSid.optional(),
    auth_token: carrierToken.optional(),
  })
  .describe("A connection's kind does not change; fields of the other kind are refused")
  .meta({ id: 'PhoneConnectionUpdate' });

export const PhoneConnection = z
  .object({
    id: z.int(),
    name: z.string(),
    kind: z.enum(CONNECTION_KINDS),
    sip_address: z.string().nullable().describe('Null on carrier connections'),
    sip_transport: z.enum(['udp', 'tcp', 'tls']).nullable().describe('Null on carrier connections'),
    username: z.string().nullable(),
    password: z.string().nullable().describe('`****` and the last characters, or null'),
    livekit_trunk_id: z.string().nullable(),
    account_sid: z.string().nullable().describe('Null on sip connections'),
    auth_token: z.string().nullable().describe('`****` and the last characters; null on sip connections'),
    numbers: z.array(z.string()).describe('The managed numbers on this connection, E.164'),
    warnings: z
      .array(z.string())
      .describe(
        'What will make calls on this connection fail, such as a PUBLIC_URL that is not https on a carrier connection; empty when nothing is known to be wrong',
      ),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'PhoneConnection' });

export const PhoneConnectionParams = z.object({ connection_id: idParam });

const assistantRef = z.int().min(1).max(MAX_ID).nullable();

export const PhoneNumberCreate = z
  .strictObject({
    number: e164.describe('E.164. A number belongs to one organisation on the whole platform'),
    phone_connection_id: z.int().min(1).max(MAX_ID),
    label: z.string().trim().max(200).nullable().default(null),
    assistant_id: assistantRef.default(null).describe('Answers inbound calls on this number; the default assistant of outbound calls from it'),
  })
  .meta({ id: 'PhoneNumberCreate' });

export const PhoneNumberUpdate = z
  .strictObject({
    phone_connection_id: z.int().min(1).max(MAX_ID).optional(),
    label: z.string().trim().max(200).nullable().optional(),
    assistant_id: assistantRef.optional(),
  })
  .meta({ id: 'PhoneNumberUpdate' });

export const PhoneNumber = z
  .object({
    id: z.int(),
    number: z.string(),
    phone_connection_id: z.int(),
    label: z.string().nullable(),
    assistant_id: z.int().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'PhoneNumber' });

export const PhoneNumberParams = z.object({ number_id: idParam });

const variables = z
  .record(
    z
      .string()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'Variable names are letters, digits and _'),
    z.string().max(4000),
  )
  .refine((v) => Object.keys(v).length <= 50, { message: 'At most 50 variables', params: { type: 'too_big' } });

export const InitiateCall = z
  .strictObject({
    to_phone_number: e164.describe('Who to call, E.164'),
    from_phone_number: e164.optional().describe("One of the organisation's managed numbers; default: its first number"),
    welcome_message: z.string().max(2000).optional().describe("Overrides the assistant's opening line for this call only"),
    variables: variables.optional().describe('Readable as `{{var.*}}` in the prompt, the opening line and tools'),
    assistant_id: z.int().min(1).max(MAX_ID).optional().describe("The assistant to talk; default: the calling number's assistant"),
    detect_voicemail: z
      .boolean()
      .optional()
      .describe("Ask the carrier whether a person or a machine answered (carrier connections only); the verdict is the call's `answered_by`. Default false"),
  })
  .meta({ id: 'InitiateCall' });

export const InitiateCallResponse = z
  .object({
    success: z.literal(true),
    message: z.string(),
    call_sid: z.string().describe('Matches the later `call.completed` event; readable at `GET /api/calls/{call_sid}`'),
    provider_call_sid: z.string().nullable().describe('Null at response time: the carrier has not been reached yet'),
  })
  .meta({ id: 'InitiateCallResponse' });

export const IdempotencyHeaders = z.object({
  'idempotency-key': z.string().min(1).max(255).optional().describe('A retried request with the same key returns the first call instead of dialling again'),
});

export const WebCallCreate = z
  .strictObject({
    assistant_id: z.int().min(1).max(MAX_ID),
    welcome_message: z.string().max(2000).optional(),
    variables: variables.optional(),
  })
  .meta({ id: 'WebCallCreate' });

export const WebCall = z
  .object({
    call_sid: z.string(),
    livekit_url: z.string().describe('The LiveKit server the browser connects to'),
    room: z.string(),
    participant_token: z.string().describe('A LiveKit access token that joins only this room, valid until expires_at'),
    expires_at: z.iso.datetime(),
  })
  .meta({ id: 'WebCall' });
