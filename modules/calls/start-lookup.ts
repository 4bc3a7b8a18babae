import crypto from 'node:crypto';
import { z } from 'zod';
import type { Db } from '../../prisma/client.js';
import type { Prisma } from '../../prisma/generated/client.js';
import { guardedRequest } from '../../lib/net/guarded-request.js';
import { signedHeaders } from '../webhooks/index.js';
import type { CallRow } from './lifecycle.js';
import type { CallStartLookupResult } from './schemas.js';

// The call-start lookup: as a call starts, before its greeting, the assistant's `call_start_lookup.url` is sent who is
// calling (a signed POST, Standard Webhooks like every webhook), and its answer sets `{{var.*}}` values, the welcome
// and the prompt for this call. A CRM answers "this is Ada, her order shipped". The call never waits past the deadline:
// a late, failed or unreadable answer is recorded on the call and the call goes on with what it had.

/** The event type the request carries, as webhooks carry theirs. */
export const CALL_STARTING = 'call.starting';
/** Bytes of an answer read: variables and two texts fit well within it. */
const MAX_ANSWER_BYTES = 256 * 1024;
const MAX_VARIABLES = 100;

export interface StartLookupConfig {
  url: string;
  /** The opened `whsec_` secret. */
  secret: string;
  timeoutMs: number;
}

/** What the team's server may answer. Fields it adds beyond these are left alone, so it may answer more than is read. */
const LookupAnswer = z.object({
  variables: z
    .record(z.string().min(1).max(200), z.union([z.string().max(10_000), z.number(), z.boolean(), z.null()]))
    .refine((v) => Object.keys(v).length <= MAX_VARIABLES, `at most ${MAX_VARIABLES} variables`)
    .optional(),
  welcome_message: z.string().max(10_000).nullable().optional(),
  system_prompt: z.string().max(100_000).nullable().optional(),
  language: z
    .string()
    .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be a language code such as es or pt-BR')
    .nullable()
    .optional(),
});

export interface StartLookup {
  result: CallStartLookupResult;
  /** Values the answer set, as text (spec: variables are strings). */
  variables: Record<string, string>;
  welcomeMessage?: string;
  systemPrompt?: string;
  /** The language the call starts in, when the assistant speaks it. */
  language?: string;
}

/** The request's body: the call as `call.started` describes it, its contact and the variables it was placed with. */
function requestBody(call: CallRow, contact: Record<string, unknown> | null, now: Date): string {
  return JSON.stringify({
    type: CALL_STARTING,
    timestamp: now.toISOString(),
    data: {
      call_sid: call.callSid,
      direction: call.direction,
      transport: call.transport,
      from_number: call.fromNumber,
      to_number: call.toNumber,
      assistant_id: call.assistantId,
      campaign_id: call.campaignId,
      contact_id: call.contactId,
      contact,
      variables: call.variables ?? {},
    },
  });
}

const failed = (response: { status: number | null; durationMs: number }, error: string, status: 'failed' | 'timed_out' = 'failed'): StartLookup => ({
  result: { status, http_status: response.status, duration_ms: response.durationMs, error, variables: [], overrides: [] },
  variables: {},
});

/** The first problem of an answer that does not fit, as `path: message`. */
function problemOf(error: z.ZodError): string {
  const issue = error.issues[0]!;
  return `${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`;
}

/** Asks the lookup's URL about the call; never throws, and answers within `timeoutMs` (plus the time to read its JSON). */
export async function lookUpCall(
  config: StartLookupConfig,
  call: CallRow,
  contact: Record<string, unknown> | null,
  options: { allowPrivateTargets: boolean; signal?: AbortSignal | undefined; now?: Date },
): Promise<StartLookup> {
  const now = options.now ?? new Date();
  const body = requestBody(call, contact, now);
  const id = `msg_${crypto.randomBytes(12).toString('base64url')}`;
  const response = await guardedRequest({
    method: 'POST',
    url: config.url,
    headers: { ...signedHeaders([config.secret], id, Math.floor(now.getTime() / 1000), body), accept: 'application/json' },
    body,
    timeoutMs: config.timeoutMs,
    maxBodyBytes: MAX_ANSWER_BYTES,
    allowPrivateTargets: options.allowPrivateTargets,
    signal: options.signal,
  });
  if (response.error) return failed(response, response.error, response.error.startsWith('timed out') ? 'timed_out' : 'failed');
  if (response.status === null || response.status < 200 || response.status > 299) return failed(response, `HTTP ${response.status}`);
  if (response.truncated) return failed(response, `answer longer than ${MAX_ANSWER_BYTES} bytes`);
  const text = response.body.toString('utf8').trim();
  // 204, or 200 with nothing: the server knows nothing of this caller, and the call goes on as it was placed.
  if (text === '') return { result: { ...failed(response, '').result, status: 'applied', error: null }, variables: {} };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return failed(response, 'answer is not JSON');
  }
  const answer = LookupAnswer.safeParse(json);
  if (!answer.success) return failed(response, `answer not understood: ${problemOf(answer.error)}`);
  const variables = Object.fromEntries(
    Object.entries(answer.data.variables ?? {})
      .filter((entry): entry is [string, string | number | boolean] => entry[1] !== null)
      .map(([name, value]) => [name, String(value)]),
  );
  const welcomeMessage = answer.data.welcome_message ?? undefined;
  const systemPrompt = answer.data.system_prompt ?? undefined;
  const language = answer.data.language ?? undefined;
  const overrides = [
    ...(welcomeMessage !== undefined ? ['welcome_message' as const] : []),
    ...(systemPrompt !== undefined ? ['system_prompt' as const] : []),
    ...(language !== undefined ? ['language' as const] : []),
  ];
  return {
    result: { status: 'applied', http_status: response.status, duration_ms: response.durationMs, error: null, variables: Object.keys(variables), overrides },
    variables,
    ...(welcomeMessage !== undefined && { welcomeMessage }),
    ...(systemPrompt !== undefined && { systemPrompt }),
    ...(language !== undefined && { language }),
  };
}

/**
 * Writes what the lookup did on the call, and the values it set into the call's `variables` (over those it was placed
 * with: the server saw them and answered last), so the call's record shows what its `{{var.*}}` read.
 */
export async function recordCallStartLookup(db: Db, call: CallRow, lookup: StartLookup): Promise<Record<string, unknown>> {
  const variables = { ...((call.variables ?? {}) as Record<string, unknown>), ...lookup.variables };
  await db.call.update({ where: { id: call.id }, data: { callStartLookup: lookup.result, variables: variables as Prisma.InputJsonObject } });
  return variables;
}
