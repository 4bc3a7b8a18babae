import type { Db } from '../../prisma/client.js';
import type { StoredTurn } from './store.js';
import { redactText, redactTurn, redactValue } from './redaction/redact.js';

// A call's privacy mode, as a call applies it. `full` keeps what a call says (until retention deletes it); `redacted`
// keeps it with personal details masked (redaction/): names, phone numbers, emails, card numbers, addresses and long
// identifiers become placeholders in every turn, tool call, analysis, collected value and variable, and the recording
// has a beep where they were said; `metadata_only` keeps a call's metadata (numbers, times, status, end reason, cost,
// usage) and each turn's role and timings, and never its words: no recording is made, each turn is stored without its
// text, tool arguments, answers or knowledge passages, and no analysis, collected values or variables are kept. The
// model hears the call as ever; only what is stored changes.

/** From the mode that keeps most to the one that keeps least. */
export const PRIVACY_MODES = ['full', 'redacted', 'metadata_only'] as const;
export type PrivacyMode = (typeof PRIVACY_MODES)[number];

/** A stored mode, read back; anything unknown reads as `full`, as rows written before a mode existed do. */
export function privacyModeOf(stored: string | null | undefined): PrivacyMode {
  return (PRIVACY_MODES as readonly string[]).includes(stored ?? '') ? (stored as PrivacyMode) : 'full';
}

/**
 * The mode a call runs under: the stricter of its organisation's and its assistant's (null follows the organisation).
 * An assistant can keep less than its organisation, never more: an organisation that chose `redacted` has every call
 * redacted or kept as metadata only, whatever an assistant says.
 */
export function strictestPrivacyMode(organization: PrivacyMode, assistant: PrivacyMode | null | undefined): PrivacyMode {
  if (!assistant) return organization;
  return PRIVACY_MODES.indexOf(assistant) > PRIVACY_MODES.indexOf(organization) ? assistant : organization;
}

/** The mode a call of this organisation and assistant runs under (see strictestPrivacyMode). */
export async function callPrivacyMode(db: Db, organizationId: number, assistantMode?: PrivacyMode | null): Promise<PrivacyMode> {
  const org = await db.organization.findUnique({ where: { id: organizationId }, select: { privacyMode: true } });
  return strictestPrivacyMode(privacyModeOf(org?.privacyMode), assistantMode);
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

/** A turn as a call of this mode stores it. */
export function turnAsKept(mode: PrivacyMode, turn: StoredTurn): StoredTurn {
  if (mode === 'metadata_only') return withoutWords(turn);
  if (mode === 'redacted') return redactTurn(turn).turn;
  return turn;
}

/**
 * What a `metadata_only` call forgets once it ends: the variables it was placed with and its own opening line, which
 * may name the caller.
 */
export async function forgetCallVariables(db: Db, callId: number): Promise<void> {
  await db.call.update({ where: { id: callId }, data: { variables: {}, welcomeMessage: null } });
}

/** What a `redacted` call keeps of its variables and its own opening line once it ends: their personal details masked. */
export async function redactCallVariables(db: Db, callId: number): Promise<void> {
  const call = await db.call.findUniqueOrThrow({ where: { id: callId }, select: { variables: true, welcomeMessage: true } });
  await db.call.update({
    where: { id: callId },
    data: { variables: redactValue(call.variables ?? {}) as object, welcomeMessage: redactText(call.welcomeMessage) },
  });
}
