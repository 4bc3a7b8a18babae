import type { Db } from '../../prisma/client.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { ValidationFailed, type ValidationDetail } from '../../lib/errors.js';
import { isMasked, maskSecret, openedForm, sealedForm } from '../../lib/secrets.js';
import { signingSecretProblem } from './settings.js';

// The vendor keys an assistant may carry in its settings: `llm_provider_config.custom_config.api_key`,
// `tts_settings.provider_config.api_key` and each `llm_fallback_providers.fallbacks[].api_key` (STT takes its key from
// the service only); and the secret that signs the call-start lookup, `call_start_lookup.secret`. They are write-only and sealed at rest: stored sealed with the SecretBox (SECRETS_KEY), bound to
// the organisation; shown masked in every answer; opened only for the call runtime. A value stored in the clear before
// keys were sealed is still read, and is sealed by the next write of its assistant or by the API's start-up pass.
//
// A stored key is only ever sent where it was given for: the same vendor at the same address. An update that moves a
// stored key elsewhere (another provider, another `base_url`) without sending the key again is refused, so nobody who
// can edit an assistant can have its key sent to a server of their own and read it there.

/** Binds a sealed key to its organisation: copied into another organisation's assistant, it does not open. */
export const keyContext = (organizationId: number) => `assistant-key:${organizationId}`;

/** The parts of the settings that hold keys, as the API names them (what a row's JSON columns hold). */
export interface KeyHolders {
  llm_provider: string | null;
  llm_provider_config: { base_url?: string | null; custom_config: Record<string, unknown> | null };
  tts_settings: { provider: string; provider_config: Record<string, unknown> };
  llm_fallback_providers: { fallbacks: { provider: string; api_key: string | null; base_url?: string | null }[] };
  call_start_lookup?: { secret: string | null };
}

interface Slot {
  /** Where the key sits, dotted as the API names it. */
  field: string;
  /** Where it is sent: the vendor and the address that overrides the vendor's own (`base_url`), if any. */
  destination: string;
  value: unknown;
  /** Why a new value cannot be stored here; null when it can. */
  problem?: (value: string) => string | null;
}

const destination = (vendor: string, baseUrl: unknown) => `${vendor} ${typeof baseUrl === 'string' ? baseUrl : ''}`;

function slotsOf(s: KeyHolders): Slot[] {
  const llm = s.llm_provider_config;
  const tts = s.tts_settings.provider_config;
  return [
    {
      field: 'llm_provider_config.custom_config.api_key',
      destination: destination(s.llm_provider ?? 'openai', llm.base_url),
      value: llm.custom_config?.api_key,
    },
    { field: 'tts_settings.provider_config.api_key', destination: destination(s.tts_settings.provider, tts?.base_url), value: tts?.api_key },
    ...s.llm_fallback_providers.fallbacks.map((f, i) => ({
      field: `llm_fallback_providers.fallbacks.${i}.api_key`,
      destination: destination(f.provider, f.base_url),
      value: f.api_key,
    })),
    // It signs what is sent to the lookup's URL and is never sent itself, so a new URL keeps it.
    { field: 'call_start_lookup.secret', destination: 'call_start_lookup', value: s.call_start_lookup?.secret, problem: signingSecretProblem },
  ];
}

const locOf = (field: string) => ['body', ...field.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p))];

/**
 * The settings with each key that is a string replaced by `replace(slot)`; undefined takes the key out (a fallback's
 * becomes null). Nothing else changes.
 */
function withKeys<S extends KeyHolders>(s: S, replace: (slot: Slot & { value: string }) => string | undefined): S {
  const [llm, tts, ...rest] = slotsOf(s);
  const lookup = rest.pop()!;
  const fallbacks = rest;
  const swap = <R extends Record<string, unknown> | null>(record: R, slot: Slot): R => {
    if (!record || typeof slot.value !== 'string') return record;
    const next = replace(slot as Slot & { value: string });
    if (next !== undefined) return { ...record, api_key: next };
    const { api_key: _gone, ...rest } = record;
    return rest as R;
  };
  return {
    ...s,
    llm_provider_config: { ...s.llm_provider_config, custom_config: swap(s.llm_provider_config.custom_config, llm!) },
    tts_settings: { ...s.tts_settings, provider_config: swap(s.tts_settings.provider_config, tts!) },
    llm_fallback_providers: {
      ...s.llm_fallback_providers,
      fallbacks: s.llm_fallback_providers.fallbacks.map((f, i) => {
        const slot = fallbacks[i]!;
        return typeof slot.value === 'string' ? { ...f, api_key: replace(slot as Slot & { value: string }) ?? null } : f;
      }),
    },
    ...(s.call_start_lookup && typeof lookup.value === 'string'
      ? { call_start_lookup: { ...s.call_start_lookup, secret: replace(lookup as Slot & { value: string }) ?? null } }
      : {}),
  };
}

/** A key in a free-form object must be a string (or null): anything else could not be sealed, nor sent as a key. */
export function keyProblems(s: KeyHolders): ValidationDetail[] {
  return slotsOf(s)
    .filter((slot) => slot.value !== undefined && slot.value !== null && typeof slot.value !== 'string')
    .map((slot) => ({ loc: locOf(slot.field), msg: 'api_key must be a string', type: 'string_type' }));
}

/** The keys as the call runtime uses them: opened; a key that does not open (another SECRETS_KEY) is left out. */
export function openKeys<S extends KeyHolders>(s: S, secrets: SecretBox | undefined, organizationId: number): S {
  const context = keyContext(organizationId);
  return withKeys(s, (slot) => openedForm(secrets, slot.value, context));
}

/**
 * The stored settings with each key replaced by a token that names its place, for an update to merge over: a key the
 * update leaves alone comes out of the merge as its token (which `sealKeys` knows), not as a value a client could send.
 * `nonce` is fresh for each update.
 */
export function withKeyTokens<S extends KeyHolders>(s: S, nonce: string): S {
  return withKeys(s, (slot) => keyToken(nonce, slot.field));
}

const keyToken = (nonce: string, field: string) => `kept:${nonce}:${field}`;

/** The mask a read shows for a stored key (sealed or not): `****` and its last 4 characters, or `****` alone. */
function maskOf(secrets: SecretBox | undefined, stored: string, context: string): string {
  return maskSecret(openedForm(secrets, stored, context) ?? '');
}

/** The keys as every answer shows them: masked. */
export function maskKeys<S extends KeyHolders>(s: S, secrets: SecretBox | undefined, organizationId: number): S {
  const context = keyContext(organizationId);
  return withKeys(s, (slot) => maskOf(secrets, slot.value, context));
}

/**
 * The keys as they are stored: sealed. `stored` is what the row holds (null for a new assistant) and `nonce` the one
 * `withKeyTokens` replaced its keys with before the merge. A key the update left alone (its token), or whose mask the
 * client sent back (a client writing back what it read), keeps the stored key, as long as it is still sent to the same
 * vendor at the same address; otherwise the update is refused (422 at the key): the key must be sent again. Anything
 * else is a new key, sealed. Without `secrets` (tests that make rows directly) keys are stored as given, and read like
 * rows written before keys were sealed.
 */
export function sealKeys<S extends KeyHolders>(
  next: S,
  stored: { settings: KeyHolders; nonce: string } | null,
  secrets: SecretBox | undefined,
  organizationId: number,
): S {
  if (!secrets) return next;
  const context = keyContext(organizationId);
  const slotsBefore = stored ? slotsOf(stored.settings) : [];
  const before = new Map(slotsBefore.map((slot) => [slot.field, slot]));
  const refused: ValidationDetail[] = [];
  const sealed = withKeys(next, (slot) => {
    const previous = before.get(slot.field);
    const kept = previous !== undefined && slot.value === keyToken(stored!.nonce, slot.field);
    const maskOfPrevious = previous !== undefined && typeof previous.value === 'string' && slot.value === maskOf(secrets, previous.value, context);
    if ((kept || maskOfPrevious) && previous!.destination === slot.destination) return sealedForm(secrets, previous!.value as string, context);
    // A mask sent back for a fallback that moved in the list (one above it removed): the key it masks, when it is still
    // sent where it was given for.
    if (typeof slot.value === 'string' && isMasked(slot.value)) {
      const same = slotsBefore.find(
        (p) => typeof p.value === 'string' && p.destination === slot.destination && maskOf(secrets, p.value, context) === slot.value,
      );
      if (same) return sealedForm(secrets, same.value as string, context);
    }
    if (kept || maskOfPrevious) {
      refused.push({ loc: locOf(slot.field), msg: 'The stored key is not sent to another provider or base_url: send the key again', type: 'value_error' });
      return undefined;
    }
    // A mask that masks no stored key sent there is not a key: storing it would break every call made with it.
    if (typeof slot.value === 'string' && isMasked(slot.value)) {
      refused.push({
        loc: locOf(slot.field),
        msg: 'This is a masked key, not a key: send the key itself, or leave it out to keep the stored one',
        type: 'value_error',
      });
      return undefined;
    }
    const problem = slot.problem?.(slot.value);
    if (problem) {
      refused.push({ loc: locOf(slot.field), msg: problem, type: 'value_error' });
      return undefined;
    }
    return secrets.seal(slot.value, context);
  });
  if (refused.length > 0) throw new ValidationFailed(refused);
  return sealed;
}

/** The keys as stored, with each one stored in the clear sealed (the start-up pass). */
function sealStored<S extends KeyHolders>(s: S, secrets: SecretBox, organizationId: number): S {
  const context = keyContext(organizationId);
  return withKeys(s, (slot) => sealedForm(secrets, slot.value, context));
}

// The start-up pass: keys stored in the clear before they were sealed. jsonpath `starts with` finds them in the database
// without opening anything, so once every key is sealed a start costs one scan of the assistants and writes nothing.
const CLEAR_KEY = {
  llm: '$.custom_config.api_key ? (@.type() == "string" && !(@ starts with "v1."))',
  tts: '$.provider_config.api_key ? (@.type() == "string" && !(@ starts with "v1."))',
  fallbacks: '$.fallbacks[*].api_key ? (@.type() == "string" && !(@ starts with "v1."))',
};
/** Rows read and written per batch: bounded memory and short statements whatever the number of assistants. */
const SEAL_BATCH = 100;

interface KeyColumns {
  id: number;
  organization_id: number;
  llm_provider: string | null;
  llm_provider_config: KeyHolders['llm_provider_config'];
  tts_settings: KeyHolders['tts_settings'];
  llm_fallback_providers: KeyHolders['llm_fallback_providers'];
}

/**
 * Seals the keys of every assistant that still holds one in the clear, and answers how many assistants it sealed. Any
 * number of processes may run it at once: each row is written only if its key columns are still what was read (a
 * compare-and-set), so neither a concurrent pass nor an update made meanwhile is overwritten. `updated_at` is left as
 * it was: the assistant's settings did not change.
 */
export async function sealClearAssistantKeys(db: Db, secrets: SecretBox): Promise<number> {
  const json = (value: unknown) => JSON.stringify(value);
  let sealed = 0;
  let after = 0;
  for (;;) {
    const rows = await db.$queryRaw<KeyColumns[]>`
      SELECT id, organization_id, llm_provider, llm_provider_config, tts_settings, llm_fallback_providers
      FROM assistants
      WHERE id > ${after}
        AND (jsonb_path_exists(llm_provider_config, ${CLEAR_KEY.llm}::jsonpath)
          OR jsonb_path_exists(tts_settings, ${CLEAR_KEY.tts}::jsonpath)
          OR jsonb_path_exists(llm_fallback_providers, ${CLEAR_KEY.fallbacks}::jsonpath))
      ORDER BY id
      LIMIT ${SEAL_BATCH}`;
    for (const row of rows) {
      const holders: KeyHolders = {
        llm_provider: row.llm_provider,
        llm_provider_config: { ...row.llm_provider_config, custom_config: row.llm_provider_config.custom_config ?? null },
        tts_settings: { ...row.tts_settings },
        llm_fallback_providers: { ...row.llm_fallback_providers, fallbacks: row.llm_fallback_providers.fallbacks ?? [] },
      };
      const next = sealStored(holders, secrets, row.organization_id);
      const written = await db.$executeRaw`
        UPDATE assistants
        SET llm_provider_config = ${json(next.llm_provider_config)}::jsonb,
            tts_settings = ${json(next.tts_settings)}::jsonb,
            llm_fallback_providers = ${json(next.llm_fallback_providers)}::jsonb
        WHERE id = ${row.id}
          AND llm_provider_config = ${json(row.llm_provider_config)}::jsonb
          AND tts_settings = ${json(row.tts_settings)}::jsonb
          AND llm_fallback_providers = ${json(row.llm_fallback_providers)}::jsonb`;
      sealed += written;
    }
    if (rows.length < SEAL_BATCH) return sealed;
    after = rows[rows.length - 1]!.id;
  }
}
