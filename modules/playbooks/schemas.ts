import { z } from 'zod';
import { int } from '../../lib/zod/int.js';
import { idParam, MAX_ID } from '../../lib/zod/query.js';

// Playbooks: procedures an assistant follows when a situation arises (when to use it, the goal, the steps, example
// exchanges, the tools it may use, the values it collects), taken inline in the prompt or by a handoff. docs/playbooks.md.
// Every list and string is bounded: a playbook is read by the model at every turn it is active, so its size is tokens.

export const PLAYBOOK_MODES = ['auto', 'inline', 'handoff'] as const;
export const COLLECT_TYPES = ['string', 'number', 'integer', 'boolean', 'date', 'enum'] as const;
export type CollectType = (typeof COLLECT_TYPES)[number];

export const MAX_NAME_LENGTH = 100;
export const MAX_TEXT_LENGTH = 1_000;
/** Free-form notes (the legacy `content`): about 2,500 tokens. */
export const MAX_CONTENT_LENGTH = 10_000;
export const MAX_INSTRUCTIONS = 50;
export const MAX_EXAMPLES = 10;
export const MAX_EXAMPLE_MESSAGES = 20;
export const MAX_TOOLS = 20;
export const MAX_COLLECT = 30;
export const MAX_ENUM_VALUES = 50;
export const MAX_ENUM_VALUE_LENGTH = 100;
/** A value the model saves is refused beyond this length: a spoken value, not a document. */
export const MAX_COLLECTED_STRING_LENGTH = 1_000;
/** What the model's function-calling APIs accept as a property name, and what a webhook consumer reads as a key. */
export const COLLECT_NAME = /^[a-zA-Z][a-zA-Z0-9_]{0,63}$/;

const text = (what: string, max = MAX_TEXT_LENGTH) => z.string().max(max).describe(what);

export const ExampleMessage = z
  .strictObject({
    role: z.enum(['user', 'assistant']),
    content: z.string().min(1).max(MAX_TEXT_LENGTH),
  })
  .meta({ id: 'PlaybookExampleMessage' });

export const CollectField = z
  .strictObject({
    name: z
      .string()
      .regex(COLLECT_NAME, 'must start with a letter and hold only letters, digits and _, at most 64')
      .describe('The key the value is stored under'),
    type: z
      .enum(COLLECT_TYPES)
      .describe('string, number, integer, boolean, date (ISO 8601: YYYY-MM-DD, or a date-time with its offset), or enum (one of `values`)'),
    description: text('What the value is, for the model').default(''),
    required: z.boolean().default(false).describe('The playbook is not finished without it'),
    values: z
      .array(z.string().min(1).max(MAX_ENUM_VALUE_LENGTH))
      .min(1)
      .max(MAX_ENUM_VALUES)
      .nullable()
      .default(null)
      .describe('The allowed values: required for type enum, refused otherwise'),
  })
  .meta({ id: 'PlaybookCollectField' });
export type CollectFieldIn = z.output<typeof CollectField>;

const name = z.string().trim().min(1).max(MAX_NAME_LENGTH).describe('Unique in the organisation; the handoff the model calls is named after it');
const description = text('When to use it: the model reads this to decide to take the playbook');
const goal = text('What the playbook achieves');
const instructions = z.array(z.string().min(1).max(MAX_TEXT_LENGTH)).max(MAX_INSTRUCTIONS).describe('The steps, in order');
const examples = z.array(z.array(ExampleMessage).min(1).max(MAX_EXAMPLE_MESSAGES)).max(MAX_EXAMPLES).describe('Example exchanges: each a list of messages');
const content = text('Free-form notes, given to the model after the steps', MAX_CONTENT_LENGTH);
const toolIds = z.array(int().min(1).max(MAX_ID)).max(MAX_TOOLS).describe("The organisation's enabled tools the playbook may use, in order");
const collect = z.array(CollectField).max(MAX_COLLECT).describe('Values to collect, saved through a tool the model calls');
const mode = z
  .enum(PLAYBOOK_MODES)
  .describe(
    'auto: inline when small, without tools and without values to collect, else handoff; inline: a section of the prompt; handoff: an agent of its own',
  );

export const PlaybookCreate = z
  .strictObject({
    name,
    description: description.default(''),
    enabled: z.boolean().default(true),
    goal: goal.default(''),
    instructions: instructions.default([]),
    examples: examples.default([]),
    content: content.default(''),
    tool_ids: toolIds.default([]),
    collect: collect.default([]),
    mode: mode.default('auto'),
  })
  .meta({ id: 'PlaybookCreate' });
export type PlaybookCreateIn = z.output<typeof PlaybookCreate>;

export const PlaybookUpdate = z
  .strictObject({
    name: name.optional(),
    description: description.optional(),
    enabled: z.boolean().optional(),
    goal: goal.optional(),
    instructions: instructions.optional(),
    examples: examples.optional(),
    content: content.optional(),
    tool_ids: toolIds.optional(),
    collect: collect.optional(),
    mode: mode.optional(),
  })
  .meta({ id: 'PlaybookUpdate', description: 'Partial update: omitted fields keep their value; lists are replaced whole.' });
export type PlaybookUpdateIn = z.output<typeof PlaybookUpdate>;

export const Playbook = z
  .object({
    id: z.int(),
    name: z.string(),
    description: z.string(),
    enabled: z.boolean(),
    goal: z.string(),
    instructions: z.array(z.string()),
    examples: z.array(z.array(z.object({ role: z.enum(['user', 'assistant']), content: z.string() }))),
    content: z.string(),
    tool_ids: z.array(z.int()),
    collect: z.array(
      z.object({ name: z.string(), type: z.enum(COLLECT_TYPES), description: z.string(), required: z.boolean(), values: z.array(z.string()).nullable() }),
    ),
    mode: z.enum(PLAYBOOK_MODES),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'Playbook' });
export type PlaybookOut = z.infer<typeof Playbook>;

export const PlaybookParams = z.object({ playbook_id: idParam });
