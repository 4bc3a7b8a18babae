import type { Db } from '../../prisma/client.js';
import type { StoredTurn } from './store.js';

// An organisation's privacy mode, as a call applies it. `full` keeps what a call says (until retention deletes it);
// `metadata_only` keeps a call's metadata (numbers, times, status, end reason, cost, usage) and each turn's role and
// timings, and never its words: no recording is made, each turn is stored without its text, tool arguments, answers
// or knowledge passages, and no analysis, collected values or variables are kept. The model hears the call as ever;
// only what is stored changes.

export const PRIVACY_MODES = ['full', 'metadata_only'] as const;
export type PrivacyMode = (typeof PRIVACY_MODES)[number];

export async function callPrivacyMode(db: Db, organizationId: number): Promise<PrivacyMode> {
  const org = await db.organization.findUnique({ where: { id: organizationId }, select: { privacyMode: true } });
  return org?.privacyMode === 'metadata_only' ? 'metadata_only' : 'full';
}

/** A turn as `metadata_only` stores it: its role and timings, and which tools ran, without a word of what was said. */
export function withoutWords(turn: StoredTurn): StoredTurn {
  return {
    ...turn,
    text: '',
    ...(turn.tool_calls
      ? {
          tool_calls: turn.tool_calls.map((c) => ({
            name: c.name,
            arguments: null,
            output: null,
            is_error: c.is_error,
            at_ms: c.at_ms,
            ...(c.duration_ms !== undefined && { duration_ms: c.duration_ms }),
          })),
        }
      : {}),
    retrieval: null,
  };
}

/** What a `metadata_only` call forgets once it ends: the variables it was placed with, which may name the caller. */
export async function forgetCallVariables(db: Db, callId: number): Promise<void> {
  await db.call.update({ where: { id: callId }, data: { variables: {} } });
}
