import { log, type llm } from '@livekit/agents';
import type { RecordingStorage } from '../../media/recording/storage.js';
import type { PrismaClient } from '../../prisma/client.js';
import {
  type CallRow,
  type CollectedValuesRecord,
  finishCall,
  forgetCallVariables,
  type PrivacyMode,
  type StoredRecording,
  withoutWords,
} from '../../modules/calls/index.js';
import { summarizeLatency } from '../turn/metrics.js';
import { analyzeCall, type Analysis } from './analysis.js';
import type { Ending } from './ending.js';
import type { CallRecording } from './recording.js';
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
  /** The organisation's privacy mode: `metadata_only` keeps no word, analysis or variable of the call. */
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
  const recordings = recording ? await inSpan('call.recording.store', {}, () => saveRecording(recording, finish.storage, logFields)) : null;
  const wordless = finish.privacy === 'metadata_only';
  // Nothing is analysed that could not be kept.
  const analysis = wordless
    ? { summary: null, outcomes: null, error: 'not kept: the organisation keeps calls as metadata only' }
    : await inSpan('call.analysis', {}, async () => analysisOf(finish));
  const turns = wordless ? finish.transcript.turns.map(withoutWords) : finish.transcript.turns;
  try {
    await finishCall(prisma, call, {
      status: ending.status,
      endReason: ending.reason,
      endedAt: finish.endedAt,
      summary: analysis.summary,
      outcomes: analysis.outcomes,
      analysisError: analysis.error,
      missingVariables: finish.missingVariables,
      collectedValues: finish.collectedValues ?? null,
      metrics: summarizeLatency(turns),
      turns,
      recordings: recordings ?? [],
      modelUsage: finish.usage?.close(),
    });
    if (wordless) await forgetCallVariables(prisma, call.id);
  } finally {
    // Beating until the record is written: rendering an hour's recording and the analysis can take most of a minute,
    // and a silent call that long would be taken for a dead one by the recovery sweep.
    finish.stopHeartbeat();
  }
  if (recordings) await recording?.discard().catch((error: unknown) => log().warn({ ...logFields, err: error }, 'recording spool not removed'));
}

/** The stored tracks, or null when they could not be rendered. */
async function saveRecording(recording: CallRecording, storage: RecordingStorage, logFields?: Record<string, unknown>): Promise<StoredRecording[] | null> {
  try {
    return await recording.save(storage);
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
