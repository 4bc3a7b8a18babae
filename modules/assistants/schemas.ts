import { z } from 'zod';
import { assistantFields } from './settings.js';
import { deepPartial } from '../../lib/zod/walk.js';
import { idParam } from '../../lib/zod/query.js';

export const AssistantCreate = z.strictObject(assistantFields).meta({ id: 'AssistantCreate' });

export const AssistantUpdate = deepPartial(assistantFields).meta({
  id: 'AssistantUpdate',
  description: 'Partial update: nested settings objects merge field by field; arrays, free-form objects and null replace what was stored.',
});

const { name: _name, ...settingsFields } = assistantFields;

export const AssistantWarning = z
  .object({
    code: z.enum(['missing_credentials']).describe('`missing_credentials`: a vendor the settings name has no key (or a `custom` LLM no address)'),
    field: z.string().describe('The setting that names the vendor, dotted: `stt_settings.provider`, `llm_fallback_providers.fallbacks.0.provider`'),
    message: z.string().describe('What is missing and where it can be set, naming the environment variable'),
  })
  .meta({
    id: 'AssistantWarning',
    description:
      'Something that will make calls to this assistant fail although the settings are valid. Reflects the environment of the API process ' +
      'that answered; the agent workers that run calls check their own environment again when a call starts.',
  });

export const Assistant = z
  .object({
    id: z.int(),
    name: z.string(),
    organization_id: z.int(),
    user_id: z.int(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    version: z.int().describe('The number of the version these settings are: every saved change is one more (GET /api/assistants/{id}/versions)'),
    ...settingsFields,
    warnings: z
      .array(AssistantWarning)
      .describe(
        'Response only, recomputed on every read: an assistant with warnings is stored and can be edited, but calls to it end `failed` ' +
          'with `end_reason` `missing_credentials` until the missing keys are set (on the service, or in the assistant where the message says so).',
      ),
  })
  .meta({ id: 'Assistant' });
export type AssistantOut = z.output<typeof Assistant>;

export const AssistantParams = z.object({ assistant_id: idParam });
