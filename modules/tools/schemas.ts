import { z } from 'zod';
import { int } from '../../lib/zod/int.js';
import { idParam } from '../../lib/zod/query.js';

// Tools the assistant's model can call: an HTTP request of the organisation's, or a built-in a voice agent needs
// (end the call, transfer it, send DTMF digits, search the assistant's knowledge). Times carry their unit in the field name. docs/tools.md.

/** What a model's function-calling API accepts as a function name. */
export const TOOL_NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;
export const TOOL_TYPES = ['http', 'mcp', 'end_call', 'transfer_call', 'send_dtmf', 'knowledge_search'] as const;

/** A knowledge_search tool's arguments, always: the model says what to look up. */
export const KNOWLEDGE_TOOL_PARAMETERS = {
  type: 'object',
  properties: { query: { type: 'string', description: 'What to look up, in the words the documents would use' } },
  required: ['query'],
  additionalProperties: false,
};
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** A request that takes longer is abandoned and the model told so: 5 s by default, 0.5 to 30 s. */
export const DEFAULT_TIMEOUT_MS = 5_000;
export const MIN_TIMEOUT_MS = 500;
export const MAX_TIMEOUT_MS = 30_000;
/** The "still working on it" message is spoken this long into a slow tool call, unless the tool says otherwise. */
export const DEFAULT_SLOW_AFTER_MS = 2_000;

const MAX_TEMPLATE_LENGTH = 4_096;
const MAX_HEADERS = 20;
const MAX_MESSAGE_LENGTH = 300;
/** A header name as RFC 9110 allows it. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

const template = (what: string) => z.string().max(MAX_TEMPLATE_LENGTH).describe(`${what}; may hold {{var.*}}, {{contact.*}} and {{args.*}}`);
const headerMap = (what: string) =>
  z
    .record(z.string().regex(HEADER_NAME, 'must be an HTTP header name'), z.string().max(MAX_TEMPLATE_LENGTH))
    .refine((m) => Object.keys(m).length <= MAX_HEADERS, `at most ${MAX_HEADERS} entries`)
    .describe(what);

export const HttpRequestConfig = z
  .strictObject({
    method: z.enum(HTTP_METHODS).default('POST'),
    url: template('http or https URL').min(1),
    headers: headerMap('Request headers; values are templates').default({}),
    query: z
      .record(z.string().min(1).max(100), z.string().max(MAX_TEMPLATE_LENGTH))
      .refine((m) => Object.keys(m).length <= MAX_HEADERS, `at most ${MAX_HEADERS} entries`)
      .default({})
      .describe('Query parameters added to the URL; values are templates, encoded as URL components'),
    body: z
      .unknown()
      .default(null)
      .describe(
        'JSON body template: any JSON value; a string that is exactly one placeholder ("{{args.count}}") becomes that value with its type, others are text. Null: no body (the arguments are sent as the body when the method takes one)',
      ),
    secret_headers: headerMap(
      'Credential headers (Authorization, X-Api-Key): write-only, stored encrypted, shown masked; a masked value sent back keeps the stored one. Not templated',
    ).default({}),
    timeout_ms: int().min(MIN_TIMEOUT_MS).max(MAX_TIMEOUT_MS).default(DEFAULT_TIMEOUT_MS),
  })
  .meta({ id: 'HttpToolRequest' });

export const McpServerConfig = z
  .strictObject({
    url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .describe("The MCP server's Streamable HTTP endpoint; its host must be public unless the operator allows private targets"),
    secret_headers: headerMap(
      'Credential headers (Authorization, X-Api-Key) sent to the server: write-only, stored encrypted, shown masked; a masked value sent back keeps the stored one',
    ).default({}),
    timeout_ms: int()
      .min(MIN_TIMEOUT_MS)
      .max(MAX_TIMEOUT_MS)
      .default(DEFAULT_TIMEOUT_MS)
      .describe("Each call of one of the server's tools, and the listing of them"),
    tools: z
      .array(z.string().min(1).max(128))
      .max(100)
      .nullable()
      .default(null)
      .describe("The server's tools offered to the model, by name (GET /api/tools/{id}/mcp-tools lists them); null: every tool it lists"),
  })
  .meta({ id: 'McpToolServer' });

/** How long the person a warm transfer calls may let it ring: 25 s by default, 5 to 60 s. */
export const DEFAULT_RING_TIMEOUT_S = 25;
export const HOLD_AUDIO = ['music', 'tone', 'none'] as const;
const MAX_BRIEFING_PROMPT_LENGTH = 2_000;

export const TransferConfig = z
  .strictObject({
    destination: z
      .string()
      .regex(/^(\+[1-9]\d{6,14}|sips?:[^\s@]+@[^\s]+)$/, 'must be an E.164 number or a sip: URI')
      .describe('E.164 number (+14155550123) or SIP URI (sip:desk@pbx.example.com)'),
    mode: z
      .enum(['cold', 'warm'])
      .default('cold')
      .describe(
        'cold: hand the caller over at once; warm: put the caller on hold, call the destination, brief the person who answers, and connect the caller only once they accept (back to the caller if they decline, do not answer or are a voicemail)',
      ),
    handoff_message: z.string().max(MAX_MESSAGE_LENGTH).nullable().default(null).describe('Spoken to the caller before the transfer starts, in either mode'),
    briefing_prompt: z
      .string()
      .max(MAX_BRIEFING_PROMPT_LENGTH)
      .nullable()
      .default(null)
      .describe('warm: how to summarise the call for the person called (who is calling and why); null: the built-in prompt'),
    hold_audio: z.enum(HOLD_AUDIO).default('music').describe('warm: what the caller hears while on hold: music, a soft repeating tone, or silence'),
    ring_timeout_s: int().min(5).max(60).default(DEFAULT_RING_TIMEOUT_S).describe('warm: how long the destination may ring before the caller is taken back'),
    on_decline_message: z
      .string()
      .max(MAX_MESSAGE_LENGTH)
      .nullable()
      .default(null)
      .describe('warm: spoken to the caller when the person declines, does not answer or is a voicemail; null: the built-in sentence'),
  })
  .meta({ id: 'TransferToolConfig' });
export type TransferConfigOut = z.output<typeof TransferConfig>;

/** A stored transfer config, with the defaults of fields added since it was stored. */
export function storedTransfer(stored: unknown): TransferConfigOut | null {
  if (!stored || typeof stored !== 'object') return null;
  return {
    mode: 'cold',
    handoff_message: null,
    briefing_prompt: null,
    hold_audio: 'music',
    ring_timeout_s: DEFAULT_RING_TIMEOUT_S,
    on_decline_message: null,
    ...(stored as Partial<TransferConfigOut>),
  } as TransferConfigOut;
}

export const ToolMessages = z
  .strictObject({
    on_start: z.string().max(MAX_MESSAGE_LENGTH).nullable().default(null).describe('Spoken when the call starts, unless the caller is speaking'),
    on_slow: z.string().max(MAX_MESSAGE_LENGTH).nullable().default(null).describe('Spoken once the call has run slow_after_ms'),
    slow_after_ms: int().min(0).max(MAX_TIMEOUT_MS).default(DEFAULT_SLOW_AFTER_MS),
    on_failure: z.string().max(MAX_MESSAGE_LENGTH).nullable().default(null).describe('Spoken when the call fails; the model is told either way'),
  })
  .meta({ id: 'ToolMessages' });

const name = z
  .string()
  .regex(TOOL_NAME, 'must start with a letter and hold only letters, digits, _ and -, at most 64')
  .describe('The name the model calls; unique in the organisation');
const description = z.string().max(1_000).describe('What the tool does and when to use it: the model reads it');
const parameters = z.record(z.string(), z.unknown()).describe('JSON Schema of the arguments: an object schema (type "object"), at most 16 KiB');

/** The fields of a tool as a client writes them; which config applies follows `type`. */
export const ToolCreate = z
  .strictObject({
    name,
    description: description.default(''),
    type: z.enum(TOOL_TYPES),
    enabled: z.boolean().default(true),
    parameters: parameters.default({ type: 'object', properties: {} }),
    http: HttpRequestConfig.nullable().default(null).describe('Required for type http, refused otherwise'),
    transfer: TransferConfig.nullable().default(null).describe('Required for type transfer_call, refused otherwise'),
    mcp: McpServerConfig.nullable().default(null).describe('Required for type mcp, refused otherwise: the server whose tools this tool offers'),
    messages: ToolMessages.default(ToolMessages.parse({})),
  })
  .meta({ id: 'ToolCreate' });
export type ToolCreateIn = z.output<typeof ToolCreate>;

export const ToolUpdate = z
  .strictObject({
    name: name.optional(),
    description: description.optional(),
    type: z.enum(TOOL_TYPES).optional(),
    enabled: z.boolean().optional(),
    parameters: parameters.optional(),
    http: z.unknown().optional().describe('Replaces the whole HTTP config (HttpToolRequest); masked secret headers keep their stored values'),
    transfer: z.unknown().optional().describe('Replaces the whole transfer config (TransferToolConfig)'),
    mcp: z.unknown().optional().describe('Replaces the whole MCP server config (McpToolServer); masked secret headers keep their stored values'),
    messages: z.unknown().optional().describe('Replaces the spoken messages (ToolMessages)'),
  })
  .meta({ id: 'ToolUpdate', description: 'Partial update: omitted fields keep their value; the result must be a valid tool.' });
export type ToolUpdateIn = z.output<typeof ToolUpdate>;

export const Tool = z
  .object({
    id: z.int(),
    name: z.string(),
    description: z.string(),
    type: z.enum(TOOL_TYPES),
    enabled: z.boolean(),
    parameters: z.record(z.string(), z.unknown()),
    http: z
      .object({
        method: z.enum(HTTP_METHODS),
        url: z.string(),
        headers: z.record(z.string(), z.string()),
        query: z.record(z.string(), z.string()),
        body: z.unknown(),
        secret_headers: z.record(z.string(), z.string()).describe('Masked'),
        timeout_ms: z.int(),
      })
      .nullable(),
    transfer: z
      .object({
        destination: z.string(),
        mode: z.enum(['cold', 'warm']),
        handoff_message: z.string().nullable(),
        briefing_prompt: z.string().nullable(),
        hold_audio: z.enum(HOLD_AUDIO),
        ring_timeout_s: z.int(),
        on_decline_message: z.string().nullable(),
      })
      .nullable(),
    mcp: z
      .object({
        url: z.string(),
        secret_headers: z.record(z.string(), z.string()).describe('Masked'),
        timeout_ms: z.int(),
        tools: z.array(z.string()).nullable(),
      })
      .nullable(),
    messages: z.object({ on_start: z.string().nullable(), on_slow: z.string().nullable(), slow_after_ms: z.int(), on_failure: z.string().nullable() }),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'Tool' });
export type ToolOut = z.infer<typeof Tool>;

export const ToolParams = z.object({ tool_id: idParam });

export const ToolTestRequest = z
  .strictObject({
    arguments: z.record(z.string(), z.unknown()).default({}).describe('What the model would pass, as {{args.*}}'),
    variables: z.record(z.string(), z.string().max(500)).default({}).describe('The call variables, as {{var.*}}'),
    contact_id: int().min(1).nullable().default(null).describe('A contact of the organisation whose fields fill {{contact.*}}'),
  })
  .meta({ id: 'ToolTestRequest' });

export const ToolTestResult = z
  .object({
    request: z
      .object({ method: z.string(), url: z.string(), headers: z.record(z.string(), z.string()), body: z.string().nullable() })
      .describe('As sent, credentials redacted'),
    missing: z.array(z.string()).describe('Placeholders that had no value and were sent empty'),
    status: z.int().nullable().describe('HTTP status; null when no answer came'),
    duration_ms: z.int(),
    response_body: z.string().describe('At most 64 KiB, credentials redacted'),
    truncated: z.boolean(),
    is_error: z.boolean().describe('Non-2xx, a JSON answer reporting an error, a timeout, or a refused target'),
    error: z.string().nullable(),
    output: z.string().describe('What the model would be given: at most 4,000 characters'),
  })
  .meta({ id: 'ToolTestResult' });

/** One tool an MCP server lists, as the team chooses among them. */
export const McpServerTool = z
  .object({
    name: z.string(),
    description: z.string(),
    input_schema: z.record(z.string(), z.unknown()).describe('JSON Schema of its arguments'),
    offered: z.boolean().describe("Offered to the model: in the tool's `mcp.tools`, or every tool when that is null"),
  })
  .meta({ id: 'McpServerTool' });

export const McpServerTools = z
  .object({
    tools: z.array(McpServerTool),
    duration_ms: z.int(),
    error: z.string().nullable().describe('Why the server could not be listed (unreachable, refused target, timed out); the list is then empty'),
  })
  .meta({ id: 'McpServerTools' });
