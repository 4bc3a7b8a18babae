import { log } from '@livekit/agents';
import path from 'node:path';
import { removeSpool, spoolDirOf, spoolEndOf } from '../../media/recording/spool.js';
import type { RecordingStorage } from '../../media/recording/storage.js';
import type { PrismaClient } from '../../prisma/client.js';
import { AssistantSettings, DEFAULT_SYSTEM_PROMPT, loadAssistantSettings, renderPrompt } from '../../modules/assistants/index.js';
import { DEFAULT_DATA_DIR } from '../../lib/config.js';
import {
  type CallRow,
  endStaleUnstartedCalls,
  finishCall,
  forgetCallVariables,
  loadContactFields,
  privacyModeOf,
  redactCallVariables,
  redactText,
  redactValue,
  type StoredRecording,
  type StoredTurn,
  type ToolCallEntry,
  touchCallHeartbeat,
  type UnstartedCallLimits,
} from '../../modules/calls/index.js';
import { beepedStretches, type BeepedTurn, recordingStorageOf, storeOrphanRecording } from './recording.js';
import { analyzeCall, type Analysis } from './analysis.js';
import { vendorAccessFromEnv, type VendorAccess } from '../providers/speech-providers.js';
import { buildLlm } from './session-config.js';
import { summarizeLatency } from '../turn/metrics.js';
import { startJobLoop } from '../../lib/jobs.js';
import { loadSecretsKey, SecretBox } from '../../lib/secret-box.js';

// A call's process can die mid-call (a crashed job process, a killed worker, a lost machine). Its call would stay
// `in_progress` for ever, and no `call.completed` would ever reach the customer. Every running call renews a heartbeat
// on its row; every worker sweeps for `in_progress` calls whose heartbeat has stopped and ends them as `failed` with
// end reason `worker_lost`, finishing what the dead process could not: the turns stored while the call ran, the
// recording it spooled under DATA_DIR (media/recording/spool.ts) rendered into its tracks, and the post-call analysis.
//
// Any number of workers sweep side by side. A worker first claims an orphan by taking over its heartbeat (a
// compare-and-set on the stale value it read), so one worker renders and analyses it while the others pass it by; it
// renews that heartbeat while it works, so a long render is not taken from it, and if it dies in turn the heartbeat
// goes stale again and another worker takes the call over. Should two render at once all the same (a worker stalled
// past the stale limit), each stores whole files, renamed into place, rendered from the same spool that no live
// process writes to any more: the same bytes. And `finishCall` ends a call only while it is still `in_progress`, so
// each call ends, and lists its recordings, exactly once.

/** How often a running call renews its heartbeat. */
export const CALL_HEARTBEAT_INTERVAL_MS = 15_000;
/** A heartbeat older than this means the call's process is gone: four missed beats, so a slow database is not enough. */
export const CALL_STALE_AFTER_MS = 60_000;
/** How often a worker sweeps. */
export const CALL_SWEEP_INTERVAL_MS = 30_000;
/**
 * Orphans one sweep takes on. Each may take the analysis's 20 s plus its render (about a second per few minutes of
 * call), so a sweep stays within a few minutes; the rest are left to the next sweep and to other workers.
 */
const ORPHANS_PER_SWEEP = 10;

export const WORKER_LOST = 'worker_lost';

export interface CallRecoveryOptions {
  staleAfterMs?: number;
  now?: Date;
  /** The DATA_DIR calls run with (default `./.data`): their recordings are spooled under it. */
  dataDir?: string;
  /** Where recovered tracks are stored; defaults to files under `dataDir`, as for a call that ends normally. */
  storage?: RecordingStorage;
  /** Vendor keys for the analysis's LLM; defaults to the environment, as for a call. */
  access?: VendorAccess;
  /** Opens the assistant's stored vendor keys (SECRETS_KEY); default: the key in DATA_DIR, as for a call. */
  secrets?: SecretBox;
}

/** Ends every call whose process stopped renewing its heartbeat; answers the call ids it ended. */
export async function recoverOrphanedCalls(prisma: PrismaClient, options: CallRecoveryOptions = {}): Promise<number[]> {
  const now = options.now ?? new Date();
  const cutoff = new Date(now.getTime() - (options.staleAfterMs ?? CALL_STALE_AFTER_MS));
  const orphans = await prisma.call.findMany({
    where: {
      status: 'in_progress',
      OR: [{ heartbeatAt: { lt: cutoff } }, { heartbeatAt: null, startedAt: { lt: cutoff } }],
    },
    orderBy: { id: 'asc' },
    take: ORPHANS_PER_SWEEP,
  });
  const context: RecoveryContext = {
    dataDir: path.resolve(options.dataDir ?? DEFAULT_DATA_DIR),
    storage: recordingStorageOf(options),
    access: options.access ?? vendorAccessFromEnv(),
    secrets: options.secrets ?? new SecretBox(loadSecretsKey(undefined, path.resolve(options.dataDir ?? DEFAULT_DATA_DIR))),
    now,
  };
  const ended: number[] = [];
  for (const call of orphans) {
    try {
      if (await recoverCall(prisma, call, context)) ended.push(call.id);
    } catch (error) {
      // Its claim goes stale and a later sweep takes the call up again.
      log().warn({ callSid: call.callSid, err: error }, 'call recovery failed');
    }
  }
  return ended;
}

interface RecoveryContext {
  dataDir: string;
  storage: RecordingStorage;
  access: VendorAccess;
  secrets: SecretBox;
  now: Date;
}

async function recoverCall(prisma: PrismaClient, call: CallRow, context: RecoveryContext): Promise<boolean> {
  // The call ended, as far as anyone can tell, at its last sign of life. It is kept in `ended_at` with the claim: the
  // claim replaces the heartbeat, and a worker that takes over from a claimer that died must still find it.
  const endedAt = call.endedAt ?? (await lastEvidenceOf(prisma, call, context));
  const claimed = await prisma.call.updateMany({
    where: { id: call.id, status: 'in_progress', heartbeatAt: call.heartbeatAt },
    data: { heartbeatAt: new Date(), endedAt },
  });
  if (claimed.count === 0) return false;
  const callLog = { callSid: call.callSid, callId: call.id };
  const renew = setInterval(() => {
    void touchCallHeartbeat(prisma, call.id, new Date()).catch((error: unknown) => log().warn({ ...callLog, err: error }, 'recovery heartbeat not stored'));
  }, CALL_HEARTBEAT_INTERVAL_MS);
  try {
    const rows = await prisma.callTurn.findMany({ where: { callId: call.id }, orderBy: { position: 'asc' } });
    const turns: StoredTurn[] = rows.map((r) => ({
      role: r.role as StoredTurn['role'],
      text: r.text,
      start_ms: r.startMs,
      end_ms: r.endMs,
      interrupted: r.interrupted,
      metrics: r.metrics as Record<string, number> | null,
      ...(r.toolCalls ? { tool_calls: r.toolCalls as unknown as ToolCallEntry[] } : {}),
    }));
    const privacy = privacyModeOf(call.privacyMode);
    const stored = call.assistantId === null ? null : await loadAssistantSettings(prisma, call.organizationId, call.assistantId, context.secrets);
    const settings = stored ? AssistantSettings.parse(stored) : null;

    // Rendered before the finishing transaction, so the call's record and `call.completed` list the tracks.
    let recordings: StoredRecording[] = [];
    let spoolDone = true;
    if (settings) {
      try {
        recordings =
          (await storeOrphanRecording({
            callSid: call.callSid,
            settings: settings.recording_settings,
            dataDir: context.dataDir,
            storage: context.storage,
            ...(privacy === 'redacted' && { beeped: orphanBeeps(turns, endedAt.getTime() - (call.startedAt?.getTime() ?? endedAt.getTime())) }),
          })) ?? [];
      } catch (error) {
        // The spool stays under DATA_DIR for an operator; the call still ends.
        spoolDone = false;
        log().error({ ...callLog, err: error }, 'recording of a call whose process died could not be saved');
      }
    }
    const analysis: Analysis =
      privacy === 'metadata_only'
        ? { summary: null, outcomes: null, error: 'not kept: the organisation keeps calls as metadata only' }
        : settings
          ? await analyzeOrphan(prisma, call, settings, turns, context.access)
          : { summary: null, outcomes: null, error: 'assistant not found' };
    // The stored turns of a redacted call are masked already; what the model wrote of them may name someone all the same.
    if (privacy === 'redacted') Object.assign(analysis, { summary: redactText(analysis.summary), outcomes: redactValue(analysis.outcomes) });

    const finished = await finishCall(prisma, call, {
      status: 'failed',
      endReason: WORKER_LOST,
      endedAt,
      summary: analysis.summary,
      outcomes: analysis.outcomes,
      analysisError: analysis.error,
      missingVariables: (call.missingVariables as string[] | null) ?? [],
      metrics: summarizeLatency(turns),
      turns,
      recordings,
    });
    if (finished && privacy === 'metadata_only') await forgetCallVariables(prisma, call.id);
    if (finished && privacy === 'redacted') await redactCallVariables(prisma, call.id);
    if (finished && spoolDone) await removeSpool(spoolDirOf(context.dataDir, call.callSid)).catch(() => {});
    return finished;
  } finally {
    clearInterval(renew);
  }
}

/**
 * What a redacted call's recording beeps when its process died: the turns stored with a masked detail (their text
 * holds a placeholder), and, on both sides, everything after the last stored turn, whose words were never transcribed
 * and so cannot be known to be free of one.
 */
export function orphanBeeps(turns: StoredTurn[], endMs: number): BeepedTurn[] {
  const beeped = beepedStretches(turns, (i) => PLACEHOLDER.test(turns[i]!.text));
  const lastEnd = turns.reduce((end, t) => Math.max(end, t.end_ms), 0);
  if (endMs > lastEnd) for (const role of ['user', 'assistant'] as const) beeped.push({ role, start_ms: lastEnd, end_ms: endMs });
  return beeped;
}

const PLACEHOLDER = /\[(?:name|phone|email|card|address|number)\]/;

/**
 * When a call whose process died was last known to run: the latest of its last heartbeat (renewed every 15 s), the end
 * of its last stored turn (ms from the start, stored as each turn is spoken) and the end of its spooled audio (synced
 * at least every second; the caller's track grows with every frame received, speech or not). Never before the start,
 * never in the future.
 */
export async function lastEvidenceOf(prisma: PrismaClient, call: CallRow, context: { dataDir: string; now: Date }): Promise<Date> {
  const startedMs = call.startedAt?.getTime();
  let last = call.heartbeatAt?.getTime() ?? startedMs ?? context.now.getTime();
  if (startedMs !== undefined) {
    const turns = await prisma.callTurn.aggregate({ where: { callId: call.id }, _max: { endMs: true } });
    if (turns._max.endMs !== null) last = Math.max(last, startedMs + turns._max.endMs);
  }
  try {
    const spooled = await spoolEndOf(spoolDirOf(context.dataDir, call.callSid));
    if (spooled !== null) last = Math.max(last, Math.round(spooled));
  } catch (error) {
    // A damaged spool is reported when its recording is rendered; the other evidence stands.
    log().warn({ callSid: call.callSid, err: error }, 'recording spool not read for the end time');
  }
  return new Date(Math.max(Math.min(last, context.now.getTime()), startedMs ?? -Infinity));
}

/** The analysis the call's own end would have run, over the turns stored while it ran. Never throws. */
async function analyzeOrphan(prisma: PrismaClient, call: CallRow, settings: AssistantSettings, turns: StoredTurn[], access: VendorAccess): Promise<Analysis> {
  try {
    const contact = await loadContactFields(prisma, call.organizationId, call.contactId);
    const prompt = renderPrompt(settings.llm_settings.system_prompt ?? DEFAULT_SYSTEM_PROMPT, {
      variables: (call.variables ?? {}) as Record<string, unknown>,
      contact,
    });
    const model = await buildLlm(settings, access);
    try {
      // Bounded by the analysis's own timeout (ANALYSIS_TIMEOUT_MS).
      return await analyzeCall(
        model,
        prompt.text,
        turns.map(({ metrics: _m, ...t }) => t),
      );
    } finally {
      await model.aclose().catch(() => {});
    }
  } catch (error) {
    return { summary: null, outcomes: null, error: `analysis failed: ${(error as Error).message}` };
  }
}

/**
 * Sweeps now, then `intervalMs` after each sweep ends, until stopped: calls whose process died, and calls that never
 * started and no longer can (modules/calls/unstarted.ts). A failed sweep is logged and tried again at the next one. Never
 * two sweeps at a time: a sweep that runs long (a long recording to render) holds back the next one.
 */
export function startCallRecovery(
  prisma: PrismaClient,
  options: Omit<CallRecoveryOptions, 'now'> & { intervalMs?: number; unstartedLimits?: Partial<UnstartedCallLimits> } = {},
): { stop(): Promise<void> } {
  const { intervalMs, unstartedLimits, ...recovery } = options;
  const sweep = async () => {
    const orphans = recoverOrphanedCalls(prisma, recovery)
      .then((ids) => {
        if (ids.length > 0) log().warn({ callIds: ids, endReason: WORKER_LOST }, 'ended calls whose process stopped');
      })
      .catch((err: unknown) => log().warn({ err }, 'call recovery sweep failed'));
    const unstarted = endStaleUnstartedCalls(prisma, unstartedLimits ? { limits: unstartedLimits } : {})
      .then((ended) => {
        if (ended.length > 0) log().warn({ calls: ended }, 'ended calls that never started');
      })
      .catch((err: unknown) => log().warn({ err }, 'unstarted call sweep failed'));
    await Promise.all([orphans, unstarted]);
  };
  const sweeps = startJobLoop({
    intervalMs: intervalMs ?? CALL_SWEEP_INTERVAL_MS,
    // The sweep serves the calls this process runs; it is no reason on its own to keep the process alive.
    unref: true,
    pass: sweep,
    onError: (err) => log().warn({ err }, 'call recovery sweep failed'),
  });
  return {
    stop: async () => {
      await sweeps.stop();
    },
  };
}
