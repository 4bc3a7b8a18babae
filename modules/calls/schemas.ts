import { z } from 'zod';
import { MAX_ID, textInt } from '../../lib/zod/query.js';
import { repeated, textInstant } from '../../lib/zod/query.js';
import { e164 } from '../../lib/zod/e164.js';
import { CALL_STATUSES } from './statuses.js';
import { PRIVACY_MODES } from './privacy.js';
import { CallCost, CallUsage } from './usage-schemas.js';

// Reading calls: the record, its transcript, its recordings, the list and the export. What moves a call's status:
// lifecycle.ts.

export const CALL_DIRECTIONS = ['inbound', 'outbound'] as const;
export const CALL_TRANSPORTS = ['sip', 'web', 'browser', 'media_stream'] as const;
export const RECORDING_TRACKS = ['user', 'assistant', 'mixed'] as const;

export const CallParams = z.object({
  call_sid: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_-]+$/, 'Value is not a call sid'),
});

export const RecordingParams = CallParams.extend({ track: z.enum(RECORDING_TRACKS) });

const callFilters = {
  status: repeated(z.enum(CALL_STATUSES)).describe('Repeat to widen'),
  direction: repeated(z.enum(CALL_DIRECTIONS)).describe('Repeat to widen'),
  transport: repeated(z.enum(CALL_TRANSPORTS)).describe('Repeat to widen'),
  assistant_id: repeated(textInt(1, MAX_ID)).describe('Repeat to widen'),
  contact_id: repeated(textInt(1, MAX_ID)).describe('Repeat to widen'),
  campaign_id: repeated(textInt(1, MAX_ID)).describe('Repeat to widen'),
  widget_key_id: repeated(textInt(1, MAX_ID)).describe("Calls started from a website widget's button with this key. Repeat to widen"),
  phone_number: repeated(e164).describe('E.164; matches the number the call came from or went to. Repeat to widen'),
  created_after: repeated(textInstant).describe('Inclusive; ISO 8601 date-time with offset, or a date (midnight UTC)'),
  created_before: repeated(textInstant).describe('Exclusive; ISO 8601 date-time with offset, or a date (midnight UTC)'),
};

export type CallFilters = { [K in keyof typeof callFilters]?: z.output<(typeof callFilters)[K]> };

export const CallListQuery = z.object({
  page: textInt(1, 1_000_000).default(1),
  per_page: textInt(1, 100).default(20),
  ...callFilters,
});

export const CallExportQuery = z.object({
  format: z.enum(['csv', 'jsonl']).default('csv').describe('`csv` (with a header row) or `jsonl` (one call record per line)'),
  ...callFilters,
});

export const CallRecording = z.object({
  track: z.enum(RECORDING_TRACKS),
  format: z.enum(['mp3', 'wav']),
  duration_seconds: z.number(),
  size_bytes: z.int(),
  url: z.string().describe('Download path, with the same API key; supports HTTP Range'),
});

/** What a call's playbooks collected: by playbook name (docs/playbooks.md). */
export const CollectedValues = z
  .record(
    z.string(),
    z.object({
      values: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).describe('By value name, typed as declared (a date as its ISO 8601 text)'),
      missing: z.array(z.string()).describe('Required values not collected'),
    }),
  )
  .meta({ id: 'CollectedValues' });
/** What a call stores in `calls.collected_values` and `call.completed` carries: by playbook name, then value name. */
export type CollectedValuesRecord = z.output<typeof CollectedValues>;

/** What a call's start lookup did (start-lookup.ts). */
export const CallStartLookupResult = z
  .object({
    status: z
      .enum(['applied', 'failed', 'timed_out'])
      .describe('applied: the answer was used (an empty answer too); failed: a refused target, a network error, a non-2xx status or an answer not understood'),
    http_status: z.int().nullable(),
    duration_ms: z.int(),
    error: z.string().nullable(),
    variables: z.array(z.string()).describe('Names of the `{{var.*}}` values the answer set'),
    overrides: z.array(z.enum(['welcome_message', 'system_prompt', 'language'])).describe('What else of the call the answer replaced'),
  })
  .meta({ id: 'CallStartLookupResult' });
export type CallStartLookupResult = z.output<typeof CallStartLookupResult>;

export const Call = z
  .object({
    call_sid: z.string(),
    status: z.enum(CALL_STATUSES),
    direction: z.enum(CALL_DIRECTIONS),
    transport: z.enum(CALL_TRANSPORTS),
    from_number: z.string().nullable(),
    to_number: z.string().nullable(),
    assistant_id: z.int().nullable(),
    assistant_version: z.int().nullable().describe('The version of the assistant the call ran; null for a call that never started'),
    assistant_draft: z.boolean().describe('It ran the draft made on `assistant_version` (a test call from the builder), not that version itself'),
    privacy_mode: z
      .enum(PRIVACY_MODES)
      .nullable()
      .describe(
        "What the call kept: full, redacted (personal details masked in its words, analysis, values and variables, beeped in its recording) or metadata_only; the stricter of its organisation's and its assistant's modes as it started. Null for a call that never started",
      ),
    contact_id: z.int().nullable(),
    phone_number_id: z.int().nullable(),
    campaign_id: z.int().nullable(),
    widget_key_id: z.int().nullable().describe('The website widget key whose button started the call (docs/widget.md)'),
    provider_call_sid: z.string().nullable().describe('The carrier-side call id, once the carrier has one'),
    welcome_message: z.string().nullable(),
    variables: z.record(z.string(), z.unknown()),
    created_at: z.iso.datetime(),
    started_at: z.iso.datetime().nullable(),
    ended_at: z.iso.datetime().nullable(),
    duration_seconds: z.number().nullable(),
    end_reason: z.string().nullable(),
    answered_by: z
      .string()
      .nullable()
      .describe(
        'Outbound calls that asked for detection (`detect_voicemail`): human, machine_start, machine_end_beep, machine_end_silence, machine_end_other, fax or unknown',
      ),
    summary: z.string().nullable(),
    outcomes: z.record(z.string(), z.unknown()).nullable(),
    collected_values: CollectedValues.nullable().describe(
      'By playbook name: the values collected, typed as declared, and the required ones missing; null when no playbook that collects was used',
    ),
    analysis_error: z.string().nullable(),
    missing_variables: z.array(z.string()),
    call_start_lookup: CallStartLookupResult.nullable().describe("What the assistant's call-start lookup did for this call; null when it has none"),
    latency: z.record(z.string(), z.unknown()).nullable().describe('p50/p95 of each latency stage of the assistant turns, ms'),
    usage: CallUsage.nullable().describe('What the call used, by vendor and model; null for a call that never started (docs/analytics.md)'),
    cost: CallCost.nullable().describe("Its cost from the organisation's price table, by component, in US dollars; null for a call that never started"),
    recordings: z.array(CallRecording),
    transcript_url: z.string(),
  })
  .meta({ id: 'Call' });

/** Why a caller's turn ended when it did: stored on the assistant turn that answered it. */
export const TurnDecision = z
  .object({
    verdict: z
      .enum(['finished', 'unfinished'])
      .describe('finished: answered after min_endpointing_delay; unfinished: the assistant waited up to max_endpointing_delay for more'),
    decided_by: z.enum(['transcript', 'audio_model', 'none']).describe('the signal that settled it'),
    transcript: z.enum(['complete', 'incomplete', 'open']).describe("what the caller's words said; open leaves it to the audio model"),
    transcript_rule: z.enum(['empty', 'value_pending', 'terminal_punctuation', 'trailing_punctuation', 'continuation_word', 'content_word', 'phrase_complete']),
    value_kind: z.enum(['phone', 'email', 'code', 'date']).nullable().describe('the value the caller was giving, from their words or the question before'),
    audio_model_probability: z.number().nullable(),
    audio_model_threshold: z.number().nullable(),
    recogniser_endpoint: z.boolean().describe('the recogniser had declared the end of the utterance'),
    delay_ms: z.int().describe('the endpointing delay chosen, ms from the end of speech'),
  })
  .meta({ id: 'TurnDecision' });
export type TurnDecision = z.infer<typeof TurnDecision>;

/** What the knowledge base gave an assistant turn (agent/call/knowledge-turns.ts). */
export const TurnRetrieval = z
  .object({
    query: z.string().describe("the caller's words searched"),
    ms: z.number().describe("from the caller's final words (or the end of their turn) to the passages, as the reply waited for them"),
    waited_ms: z.number().describe('how long the reply waited for retrieval after the turn ended'),
    timed_out: z.boolean().describe('retrieval missed its deadline and the reply went without passages'),
    error: z.string().nullable(),
    hits: z.array(
      z.object({
        document_id: z.int(),
        chunk_id: z.int(),
        document_name: z.string(),
        heading_path: z.array(z.string()),
        fused_score: z.number(),
        lexical_score: z.number().nullable(),
        vector_score: z.number().nullable(),
        relevance: z.number().nullable(),
        in_prompt: z.boolean().describe('false when the prompt budget left it out'),
      }),
    ),
  })
  .meta({ id: 'TurnRetrieval' });
export type TurnRetrieval = z.infer<typeof TurnRetrieval>;

/** The spoken messages of a tool (modules/tools ToolMessages), as the transcript names the turns that are one. */
export const ToolMessageKind = z.enum(['on_start', 'on_slow', 'on_failure']);
export type ToolMessageKind = z.infer<typeof ToolMessageKind>;

export const TranscriptTurn = z
  .object({
    role: z.enum(['user', 'assistant']),
    text: z.string(),
    start_ms: z.int(),
    end_ms: z.int(),
    interrupted: z.boolean(),
    metrics: z.record(z.string(), z.number()).nullable(),
    tool_calls: z.array(z.unknown()).nullable(),
    turn_decision: TurnDecision.nullable().describe("assistant turns: why the caller's turn before it ended when it did"),
    retrieval: TurnRetrieval.nullable().describe('assistant turns: the knowledge passages the reply was given'),
    tool_message: ToolMessageKind.nullable().describe(
      "assistant turns that are a tool's spoken message while it runs or after it failed (messages.on_start, on_slow, on_failure), not a reply; null otherwise",
    ),
    language: z
      .string()
      .nullable()
      .describe("The language the turn was spoken in (BCP 47): the recogniser's for the caller's turns, the one replied in for the assistant's"),
  })
  .meta({ id: 'TranscriptTurn' });
