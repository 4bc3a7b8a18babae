import { z } from 'zod';
import { assistantFields } from '../../shared/assistant-settings.js';
import { deepPartial } from '../../shared/zod-walk.js';
import { idParam } from './common.js';

export const AssistantCreate = z.strictObject(assistantFields).meta({ id: 'AssistantCreate' });

export const AssistantUpdate = deepPartial(assistantFields).meta({
  id: 'AssistantUpdate',
  description:
    'Partial update: nested settings objects merge field by field; arrays, free-form objects and null replace what was stored.',
});

const { name: _name, ...settingsFields } = assistantFields;

export const Assistant = z
  .object({
    id: z.int(),
    name: z.string(),
    organization_id: z.int(),
    user_id: z.int(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
    ...settingsFields,
  })
  .meta({ id: 'Assistant' });
export type AssistantOut = z.output<typeof Assistant>;

export const AssistantParams = z.object({ assistant_id: idParam });
