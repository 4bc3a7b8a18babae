import { z } from 'zod';
import { int } from '../../lib/zod/int.js';
import { idParam, repeated, textInt } from '../../lib/zod/query.js';
import { LLM_PROVIDERS, MAX_VARIABLE_LENGTH } from '../assistants/index.js';
import { TOOL_NAME } from '../tools/index.js';
import { checkPattern } from './patterns.js';

// Text test runs of an assistant or a playbook: what a client asks for, and the run it reads back. Bounds are here,
// each with its reason; docs/test-runs.md lists them.

export const TEST_RUN_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export type TestRunStatus = (typeof TEST_RUN_STATUSES)[number];
/** A run in one of these has finished: it is never claimed again, and cancelling it is a conflict. */
export const FINISHED_STATUSES: readonly TestRunStatus[] = ['completed', 'failed', 'cancelled'];

/** A script of up to 50 user turns; each turn up to 2,000 characters (a long spoken turn is ~300). */
export const MAX_SCRIPT_TURNS = 50;
export const MAX_TURN_LENGTH = 2_000;
/** A simulated user speaks 10 turns unless told, at most 30: enough for a booking, bounded in cost. */
export const DEFAULT_SIMULATED_TURNS = 10;
export const MAX_SIMULATED_TURNS = 30;
/** Repetitions of the same conversation (models are not deterministic): 1 to 10. */
export const MAX_REPEAT = 10;
export const MAX_ASSERTIONS = 20;
/** Mocks by tool name: an assistant offers a few tools; 50 covers it and its playbooks. */
export const MAX_TOOL_MOCKS = 50;
/** A canned result is at most 16 KiB of JSON: the model reads at most 4,000 characters of a real tool's answer. */
export const MAX_MOCK_BYTES = 16_384;
export const MAX_VARIABLES = 50;
/**
 * An organisation has at most 100 runs queued or running: each costs model tokens and a worker's time, and 100 runs of
 * 10 repetitions is more than a release's regression suite; past it, a client in a loop is stopped with 409.
 */
export const MAX_ACTIVE_RUNS = 100;
const MAX_TEXT = 500;
const MAX_PERSONA = 2_000;
const MAX_GOAL = 1_000;

export const ModelRef = z
  .strictObject({
    provider: z.enum(LLM_PROVIDERS),
    model: z.string().min(1).max(200),
  })
  .meta({
    id: 'TestRunModel',
    description: "A model by vendor and name; the vendor's key is the deployment's (or the assistant's own when it is the assistant's vendor)",
  });

const toolName = z.string().regex(TOOL_NAME, 'must be a tool name');
const replyTurn = int()
  .min(1)
  .max(MAX_SCRIPT_TURNS + MAX_SIMULATED_TURNS)
  .nullable()
  .default(null)
  .describe('The reply to the Nth user turn (1-based); null: any reply');
const argumentsSubset = z
  .record(z.string(), z.unknown())
  .nullable()
  .default(null)
  .describe('Arguments the call must include (a subset match: objects compared key by key, other values equal)');

export const Assertion = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('tool_called'), name: toolName, arguments: argumentsSubset, turn: replyTurn }),
    z.strictObject({ type: z.literal('tool_not_called'), name: toolName, arguments: argumentsSubset, turn: replyTurn }),
    z.strictObject({
      type: z.literal('reply_contains'),
      text: z.string().min(1).max(MAX_TEXT),
      case_sensitive: z.boolean().default(false),
      turn: replyTurn,
    }),
    z.strictObject({
      type: z.literal('reply_matches'),
      pattern: z
        .string()
        .min(1)
        .max(200)
        .superRefine((pattern, ctx) => {
          const problem = checkPattern(pattern);
          if (problem) ctx.addIssue({ code: 'custom', message: problem, params: { type: 'value_error' } });
        })
        .describe('A JavaScript regular expression, at most 200 characters, without backreferences, lookarounds or nested quantifiers'),
      case_sensitive: z.boolean().default(false),
      turn: replyTurn,
    }),
    z.strictObject({
      type: z.literal('value_collected'),
      name: z.string().min(1).max(200).describe('A value a playbook collects, by its name or as playbook_name.value_name'),
      expected: z.unknown().optional().describe('When given, the value collected must equal it (text compared without case)'),
    }),
    z
      .strictObject({
        type: z.literal('turn_count'),
        min: int().min(0).max(100).nullable().default(null),
        max: int().min(0).max(100).nullable().default(null),
      })
      .refine((a) => a.min !== null || a.max !== null, { message: 'Give min, max or both', params: { type: 'value_error' } })
      .refine((a) => a.min === null || a.max === null || a.min <= a.max, { message: 'min must not exceed max', params: { type: 'value_error' } }),
    z.strictObject({
      type: z.literal('judge'),
      question: z.string().min(1).max(MAX_TEXT).describe('A yes/no question about the conversation; yes passes'),
    }),
  ])
  .meta({ id: 'TestRunAssertion' });
export type AssertionIn = z.output<typeof Assertion>;

export const SimulatedUser = z
  .strictObject({
    persona: z.string().min(1).max(MAX_PERSONA).describe('Who the user is and how they speak'),
    goal: z.string().min(1).max(MAX_GOAL).describe('What they want; they say they are done when it is reached or cannot be'),
    max_turns: int().min(1).max(MAX_SIMULATED_TURNS).default(DEFAULT_SIMULATED_TURNS),
    model: ModelRef.nullable().default(null).describe("The simulated user's model; default: the assistant's"),
    first_message: z
      .string()
      .min(1)
      .max(MAX_TURN_LENGTH)
      .nullable()
      .default(null)
      .describe("The user's first line, verbatim; default: written by the simulated user's model"),
    assistant_speaks_first: z
      .boolean()
      .default(false)
      .describe(
        'Open with the assistant even when it has no welcome message (its model writes the opening); an assistant with a welcome message always opens with it',
      ),
  })
  .meta({ id: 'TestRunSimulatedUser' });

const toolMocks = z
  .record(toolName, z.unknown())
  .refine((m) => Object.keys(m).length <= MAX_TOOL_MOCKS, { message: `At most ${MAX_TOOL_MOCKS} mocks`, params: { type: 'too_big' } })
  .superRefine((mocks, ctx) => {
    for (const [name, value] of Object.entries(mocks)) {
      if (value === undefined || Buffer.byteLength(JSON.stringify(value) ?? '') > MAX_MOCK_BYTES) {
        ctx.addIssue({ code: 'custom', path: [name], message: `A mock is at most ${MAX_MOCK_BYTES} bytes of JSON`, params: { type: 'too_big' } });
      }
    }
  })
  .default({})
  .describe('By tool name: the JSON the tool answers, or {"error": "..."} for a failure the model is told of');

const fields = {
  script: z.array(z.string().min(1).max(MAX_TURN_LENGTH)).min(1).max(MAX_SCRIPT_TURNS).optional().describe('The user turns, in order'),
  simulated_user: SimulatedUser.optional(),
  variables: z
    .record(
      z
        .string()
        .min(1)
        .max(64)
        .regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'Variable names are letters, digits, _ and -'),
      z.string().max(MAX_VARIABLE_LENGTH),
    )
    .refine((v) => Object.keys(v).length <= MAX_VARIABLES, { message: `At most ${MAX_VARIABLES} variables`, params: { type: 'too_big' } })
    .default({})
    .describe('Read as {{var.*}} in the prompt, the welcome and tools; values are untrusted data, as in a call'),
  contact_id: int().min(1).nullable().default(null).describe('A contact of the organisation: fills {{contact.*}}'),
  tool_mocks: toolMocks,
  use_real_tools: z
    .union([z.boolean(), z.array(toolName).max(MAX_TOOL_MOCKS)])
    .default(false)
    .describe('Tools are mocked unless this is true (every tool without a mock runs for real) or names them'),
  assertions: z.array(Assertion).max(MAX_ASSERTIONS).default([]),
  repeat: int().min(1).max(MAX_REPEAT).default(1).describe('How many times the conversation is run; the pass rate is over them'),
  judge_model: ModelRef.nullable().default(null).describe("The model that answers judge assertions; default: the assistant's"),
  use_draft: z
    .boolean()
    .default(true)
    .describe("Test the assistant's draft when it has one (PATCH /api/assistants/{id}/draft); false: its current version, as calls run it"),
};

function oneConversation(run: { script?: unknown; simulated_user?: unknown }, ctx: z.RefinementCtx) {
  if ((run.script === undefined) === (run.simulated_user === undefined)) {
    ctx.addIssue({ code: 'custom', path: ['script'], message: 'Give either script or simulated_user, not both', params: { type: 'value_error' } });
  }
}

export const TestRunCreate = z.strictObject(fields).superRefine(oneConversation).meta({ id: 'TestRunCreate' });
export type TestRunCreateIn = z.output<typeof TestRunCreate>;

export const PlaybookTestRunCreate = z
  .strictObject({
    ...fields,
    assistant_id: int()
      .min(1)
      .nullable()
      .default(null)
      .describe('The assistant the playbook runs in; default: the first assistant (lowest id) the playbook is assigned to'),
  })
  .superRefine(oneConversation)
  .meta({ id: 'PlaybookTestRunCreate' });
export type PlaybookTestRunCreateIn = z.output<typeof PlaybookTestRunCreate>;

const Usage = z.object({ prompt_tokens: z.int(), completion_tokens: z.int(), total_tokens: z.int(), requests: z.int() }).meta({ id: 'TestRunTokenUsage' });
export type UsageOut = z.infer<typeof Usage>;

export const TestRunRepetition = z
  .object({
    repetition: z.int().describe('1-based'),
    passed: z.boolean().describe('It ran to its end and every assertion passed'),
    ended_by: z
      .enum(['script', 'user_done', 'max_turns', 'assistant_ended', 'error'])
      .describe(
        'script: every turn was said; user_done: the simulated user said it was done; max_turns; assistant_ended: the assistant called end_call; error: see error',
      ),
    transcript: z.array(
      z.object({ role: z.enum(['user', 'assistant']), text: z.string(), turn: z.int().describe('The user turn it belongs to; 0: before the first') }),
    ),
    tool_calls: z.array(
      z.object({
        turn: z.int(),
        name: z.string(),
        arguments: z.unknown(),
        output: z.unknown(),
        mocked: z.boolean(),
        is_error: z.boolean(),
      }),
    ),
    collected: z.record(z.string(), z.unknown()).describe("Values the assistant's playbooks collected"),
    assertions: z.array(z.object({ index: z.int(), type: z.string(), passed: z.boolean(), reason: z.string() })),
    turns: z.array(
      z.object({ turn: z.int(), latency_ms: z.int().describe('From the user turn to the end of the reply, tools included'), llm_ttft_ms: z.int().nullable() }),
    ),
    usage: z.object({ assistant: Usage, simulated_user: Usage, judge: Usage }),
    error: z.string().nullable(),
  })
  .meta({ id: 'TestRunRepetition' });
export type RepetitionOut = z.infer<typeof TestRunRepetition>;

export const TestRunTotals = z
  .object({
    repetitions: z.int(),
    passed: z.int(),
    usage: z.object({ assistant: Usage, simulated_user: Usage, judge: Usage, total: Usage }),
    latency_ms: z.object({ p50: z.int().nullable(), p95: z.int().nullable(), max: z.int().nullable() }).describe('Over every turn of every repetition'),
  })
  .meta({ id: 'TestRunTotals' });
export type TotalsOut = z.infer<typeof TestRunTotals>;

export const TestRun = z
  .object({
    id: z.int(),
    assistant_id: z.int().nullable(),
    playbook_id: z.int().nullable(),
    assistant_version: z.int().nullable().describe('The version of the assistant the run tested; null until a worker has loaded it'),
    draft: z.boolean().describe('It tested the draft made on `assistant_version`, not that version itself'),
    status: z.enum(TEST_RUN_STATUSES),
    request: z.record(z.string(), z.unknown()).describe('The request as accepted, defaults filled in (TestRunCreate)'),
    results: z.array(TestRunRepetition).describe('One per repetition run so far'),
    pass_rate: z.number().nullable().describe('Share of repetitions that passed, 0 to 1; null until the run completes'),
    totals: TestRunTotals.nullable(),
    error: z.string().nullable().describe('Why the run failed or was cancelled'),
    attempts: z.int().describe('Times a worker took the run up (more than 1 after a worker stopped mid-run)'),
    created_at: z.iso.datetime(),
    started_at: z.iso.datetime().nullable(),
    completed_at: z.iso.datetime().nullable(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'TestRun' });
export type TestRunOut = z.infer<typeof TestRun>;

export const AssistantTestRunParams = z.object({ assistant_id: idParam });
export const PlaybookTestRunParams = z.object({ playbook_id: idParam });
export const TestRunParams = z.object({ test_run_id: idParam });

export const TestRunListQuery = z.object({
  page: textInt(1, 1_000_000).default(1),
  per_page: textInt(1, 100).default(20),
  assistant_id: idParam.optional(),
  playbook_id: idParam.optional(),
  status: repeated(z.enum(TEST_RUN_STATUSES)).describe('Repeat to widen'),
});
