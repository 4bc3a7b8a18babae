import { log, type llm } from '@livekit/agents';
import type { RecordingStorage } from '../../media/recording/storage.js';
import type { PrismaClient } from '../../prisma/client.js';
import {
  type CallRow,
  type CollectedValuesRecord,
  finishCall,
  forgetCallVariables,
  type PrivacyMode,
  redactCallVariables,
  redactText,
  redactTurn,
  redactValue,
  type StoredRecording,
  type StoredTurn,
  withoutWords,
} from '../../modules/calls/index.js';
import { summarizeLatency } from '../turn/metrics.js';
import { analyzeCall, type Analysis } from './analysis.js';
import type { Ending } from './ending.js';
import { beepedStretches, type BeepedTurn, type CallRecording } from './recording.js';
import type { Transcript } from './transcript.js';
import type { UsageMeter } from './usage.js';
import { inSpan } from '../../lib/tracing/index.js';

// The end of a call, once it has ended and its session is closed: the recording rendered into storage, the post-call
// analysis, and the call's record (status, end reason, transcript, outcomes, recordings, `call.completed`) written in
// one transaction. The call keeps its heartbeat until the record is written, and its spool until the record lists the
// tracks, so a process that dies on the way leaves the call, and its audio, to the recovery sweep.

export interface CallToFinish {
  ending: Ending;
  endedAt: Date;
  transcript: Transcript;
  recording?: CallRecording | undefined;
  /** Where the recording's tracks are stored. */
  storage: RecordingStorage;
  /** The assistant's LLM and its instructions: the analysis of a completed call runs on them. */
  analysis?: { model: llm.LLM; systemPrompt: string } | undefined;
  /** Template variables the assistant's texts named and the call did not have. */
  missingVariables: string[];
  /**
   * The call's privacy mode: `metadata_only` keeps no word, analysis or variable of the call; `redacted` keeps them
   * with personal details masked, and the recording beeped where they were said.
   */
  privacy?: PrivacyMode;
  /** What the call's playbooks collected (agent/call/collected-values.ts); null when none was used. */
  collectedValues?: CollectedValuesRecord | null;
  /** What the call's models used; read after the analysis, which it counts too. */
  usage?: UsageMeter | undefined;
  /** Stops the call's heartbeat (agent/call/heartbeat.ts); called once the record is written, or could not be. */
  stopHeartbeat: () => void;
  /** Fields that name the call in the log. */
  logFields?: Record<string, unknown>;
}

export async function finalizeCall(prisma: PrismaClient, call: CallRow, finish: CallToFinish): Promise<void> {
  return inSpan('call.finalize', { 'call.status': finish.ending.status, 'call.end_reason': finish.ending.reason }, () => writeRecord(prisma, call, finish));
}

async function writeRecord(prisma: PrismaClient, call: CallRow, finish: CallToFinish): Promise<void> {
  const { ending, recording, logFields } = finish;
  const kept = keptOf(finish);
  const recordings = recording ? await inSpan('call.recording.store', {}, () => saveRecording(recording, finish.storage, kept.beeped, logFields)) : null;
  const wordless = finish.privacy === 'metadata_only';
  // Nothing is analysed that could not be kept; a redacted call's analysis runs on what was said, and is kept masked.
  const analysis = wordless
    ? { summary: null, outcomes: null, error: 'not kept: the organisation keeps calls as metadata only' }
    : kept.analysis(await inSpan('call.analysis', {}, async () => analysisOf(finish)));
  try {
    await finishCall(prisma, call, {
      status: ending.status,
      endReason: ending.reason,
      endedAt: finish.endedAt,
      summary: analysis.summary,
      outcomes: analysis.outcomes,
      analysisError: analysis.error,
      missingVariables: finish.missingVariables,
      collectedValues: kept.collectedValues,
      metrics: summarizeLatency(kept.turns),
      turns: kept.turns,
      recordings: recordings ?? [],
      modelUsage: finish.usage?.close(),
    });
    if (wordless) await forgetCallVariables(prisma, call.id);
    if (finish.privacy === 'redacted') await redactCallVariables(prisma, call.id);
  } finally {
    // Beating until the record is written: rendering an hour's recording and the analysis can take most of a minute,
    // and a silent call that long would be taken for a dead one by the recovery sweep.
    finish.stopHeartbeat();
  }
  if (recordings) await recording?.discard().catch((error: unknown) => log().warn({ ...logFields, err: error }, 'recording spool not removed'));
}

/** What the call's privacy mode keeps of its turns, analysis and collected values, and which turns its recording beeps. */
function keptOf(finish: CallToFinish): {
  turns: StoredTurn[];
  beeped: BeepedTurn[];
  collectedValues: CallToFinish['collectedValues'];
  analysis: (analysis: Analysis) => Analysis;
} {
  const { turns } = finish.transcript;
  if (finish.privacy === 'metadata_only') return { turns: turns.map(withoutWords), beeped: [], collectedValues: null, analysis: (a) => a };
  if (finish.privacy !== 'redacted') return { turns, beeped: [], collectedValues: finish.collectedValues ?? null, analysis: (a) => a };
  const redacted = turns.map((turn) => ({ original: turn, ...redactTurn(turn) }));
  return {
    turns: redacted.map((r) => r.turn),
    beeped: beepedStretches(
      redacted.map((r) => r.original),
      (i) => redacted[i]!.masked,
    ),
    collectedValues: (redactValue(finish.collectedValues ?? null) as CallToFinish['collectedValues']) ?? null,
    analysis: (a) => ({ summary: redactText(a.summary), outcomes: redactValue(a.outcomes) as Analysis['outcomes'], error: a.error }),
  };
}

/** The stored tracks, or null when they could not be rendered. */
async function saveRecording(
  recording: CallRecording,
  storage: RecordingStorage,
  beeped: BeepedTurn[],
  logFields?: Record<string, unknown>,
): Promise<StoredRecording[] | null> {
  try {
    return await recording.save(storage, beeped);
  } catch (error) {
    // The spool stays under DATA_DIR, so the audio is still there for an operator.
    log().error({ ...logFields, err: error, spoolDir: recording.spoolDir }, 'recording could not be saved');
    return null;
  }
}

function analysisOf(finish: CallToFinish): Promise<Analysis> | Analysis {
  if (finish.ending.status === 'failed') return { summary: null, outcomes: null, error: 'call failed' };
  if (!finish.analysis) return { summary: null, outcomes: null, error: 'no model' };
  return analyzeCall(finish.analysis.model, finish.analysis.systemPrompt, finish.transcript.spoken);
}
