import type { Db } from '../../prisma/client.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { callToolOf, type CallTool } from '../tools/index.js';
import { configOf } from './service.js';
import type { CollectFieldIn, PlaybookCreateIn } from './schemas.js';

// What a session needs of a playbook: its procedure, the way it is taken (inline or by a handoff, `auto` resolved), and
// its enabled tools ready to run. A call takes the assistant's enabled attached playbooks in the order attached; a test
// run of one playbook loads it by id.

export interface CallPlaybook {
  id: number;
  name: string;
  /** When to use it: the model reads it. */
  description: string;
  goal: string;
  instructions: string[];
  examples: PlaybookCreateIn['examples'];
  /** Free-form notes (the stored `content`). */
  notes: string;
  collect: CollectFieldIn[];
  mode: 'inline' | 'handoff';
  /** The playbook's enabled tools, in order. */
  tools: CallTool[];
}

/**
 * `auto` is inline for a playbook of at most this many characters (goal, steps, examples and notes; about 400 tokens)
 * that has no tools and collects nothing: it costs less in every prompt than a handoff costs in a turn. Larger ones,
 * and those with tools or values, get an agent of their own, so the main prompt stays short and the model sees only
 * the tools of the task at hand.
 */
export const INLINE_MAX_CHARS = 1_500;

export function resolvedMode(playbook: Omit<CallPlaybook, 'mode'> & { mode: PlaybookCreateIn['mode'] }): 'inline' | 'handoff' {
  if (playbook.mode !== 'auto') return playbook.mode;
  if (playbook.tools.length > 0 || playbook.collect.length > 0) return 'handoff';
  const size = playbook.goal.length + playbook.notes.length + playbook.instructions.join('').length + JSON.stringify(playbook.examples).length;
  return size <= INLINE_MAX_CHARS ? 'inline' : 'handoff';
}

const include = {
  tools: { where: { tool: { enabled: true } }, orderBy: { position: 'asc' as const }, include: { tool: true } },
};

type PlaybookWithTools = {
  id: number;
  organizationId: number;
  name: string;
  description: string;
  content: string;
  config: unknown;
  tools: { tool: { name: string; description: string | null; type: string; config: unknown } }[];
};

/**
 * The assistant's enabled attached playbooks, in the order attached, each with its enabled tools. Without `secrets`
 * (a text test run, whose tools are mocked) an HTTP tool's credential headers are left out.
 */
export async function loadCallPlaybooks(db: Db, organizationId: number, assistantId: number, secrets?: SecretBox): Promise<CallPlaybook[]> {
  const links = await db.assistantPlaybook.findMany({
    where: { assistantId, playbook: { organizationId, enabled: true } },
    orderBy: { position: 'asc' },
    include: { playbook: { include } },
  });
  return links.map(({ playbook }) => callPlaybookOf(playbook, secrets));
}

/** One playbook of the organisation, enabled or not (a test run tries drafts too); null when there is none. */
export async function loadPlaybookForRun(db: Db, organizationId: number, playbookId: number, secrets?: SecretBox): Promise<CallPlaybook | null> {
  const playbook = await db.playbook.findFirst({ where: { id: playbookId, organizationId }, include });
  return playbook && callPlaybookOf(playbook, secrets);
}

function callPlaybookOf(row: PlaybookWithTools, secrets: SecretBox | undefined): CallPlaybook {
  const config = configOf(row.config);
  const base = {
    id: row.id,
    name: row.name,
    description: row.description,
    goal: config.goal,
    instructions: config.instructions,
    examples: config.examples,
    notes: row.content,
    collect: config.collect,
    tools: row.tools.map(({ tool }) => callToolOf(tool, row.organizationId, secrets)),
  };
  return { ...base, mode: resolvedMode({ ...base, mode: config.mode }) };
}
