import { log } from '@livekit/agents';
import type { AssistantSettings } from '../../modules/assistants/index.js';
import { type CallRow, loadContactFields, lookUpCall, recordCallStartLookup, type StartLookup } from '../../modules/calls/index.js';
import { inSpan } from '../../lib/tracing/index.js';
import type { CallScene } from './conversation.js';

// The call's side of the call-start lookup (modules/calls/start-lookup.ts): started as soon as the settings are read,
// it runs while the recording starts and the session's vendors and models load, so a server that answers within that
// time delays the greeting by nothing. What it answered is written on the call before the texts are rendered.

/** What the call's texts take from the lookup: the call's variables with the answer's over them, and its overrides. */
export interface LookedUp {
  variables: Record<string, unknown>;
  welcomeMessage?: string;
  systemPrompt?: string;
  language?: string;
}

/** Starts the assistant's lookup for this call; null when it has none. Never rejects: a failure is the call's record. */
export function startCallLookup(scene: CallScene, settings: AssistantSettings): Promise<LookedUp> | null {
  const { url, secret, timeout_ms: timeoutMs } = settings.call_start_lookup;
  if (url === null) return null;
  const { options, call, logFields } = scene;
  return inSpan('call.start_lookup', { 'lookup.timeout_ms': timeoutMs }, async (span) => {
    const lookup: StartLookup =
      secret === null
        ? // A secret sealed under another SECRETS_KEY does not open: nothing unsigned is sent.
          {
            result: { status: 'failed', http_status: null, duration_ms: 0, error: 'the secret does not open on this service', variables: [], overrides: [] },
            variables: {},
          }
        : await lookUpCall({ url, secret, timeoutMs }, call, await loadContactFields(options.prisma, call.organizationId, call.contactId), {
            allowPrivateTargets: options.allowPrivateToolTargets ?? false,
            signal: options.signal,
          });
    span.setAttributes({ 'lookup.status': lookup.result.status, 'lookup.duration_ms': lookup.result.duration_ms });
    if (lookup.result.status !== 'applied') log().warn({ ...logFields, lookup: { ...lookup.result } }, 'call-start lookup not applied');
    const variables = await recordCallStartLookup(options.prisma, call, lookup).catch((err: unknown) => {
      log().warn({ ...logFields, err }, 'call-start lookup not recorded');
      return { ...variablesOf(call), ...lookup.variables };
    });
    return {
      variables,
      ...(lookup.welcomeMessage !== undefined && { welcomeMessage: lookup.welcomeMessage }),
      ...(lookup.systemPrompt !== undefined && { systemPrompt: lookup.systemPrompt }),
      ...(lookup.language !== undefined && { language: lookup.language }),
    };
  }).catch((err: unknown) => {
    log().warn({ ...logFields, err }, 'call-start lookup failed');
    return { variables: variablesOf(call) };
  });
}

const variablesOf = (call: CallRow) => (call.variables ?? {}) as Record<string, unknown>;
