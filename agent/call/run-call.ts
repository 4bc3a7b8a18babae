import type { AudioFrame } from '@livekit/rtc-node';
import { log, type voice, type llm, type VAD } from '@livekit/agents';
import type { RecordingStorage } from '../../media/recording/storage.js';
import type { PrismaClient } from '../../prisma/client.js';
import { loadAssistantVersioned } from '../../modules/assistants/index.js';
import {
  type CallRow,
  callPrivacyMode,
  findCall,
  markCallStarted,
  type PrivacyMode,
  recordCallTransfer,
  type TranscriptEntry,
} from '../../modules/calls/index.js';
import type { KnowledgeSearch } from '../../modules/knowledge/index.js';
import type { MachineDetectorSettings } from '../../modules/campaigns/index.js';
import { loadSecretsKey, SecretBox } from '../../lib/secret-box.js';
import { callStarted } from '../../lib/metrics/index.js';
import { contextOfTraceParent, inSpan } from '../../lib/tracing/index.js';
import { DEFAULT_DATA_DIR } from '../../lib/config.js';
import { keepPiiOutOfInfoLogs } from '../logging.js';
import type { VendorAccess } from '../providers/speech-providers.js';
import { CallEnding, startSteps } from './ending.js';
import { finalizeCall } from './finalize.js';
import { startHeartbeat } from './heartbeat.js';
import { recordingStorageOf } from './recording.js';
import { CollectedValues } from './collected-values.js';
import { CallLineTools, lineOf } from './line-tools.js';
import type { CallLine } from './line.js';
import { startConversation, stopConversation } from './conversation.js';

// One call, start to end, over any pair of audio input and output: a LiveKit room's tracks, the built-in WebSocket
// transport, or a test's scripted caller. Every transport calls this one function. It reads as the call's order: the
// row marked started and its heartbeat (heartbeat.ts), the conversation made and started (conversation.ts: settings,
// session, recording, transcript, tools, the agent), the ending awaited (ending.ts), the conversation stopped, and the
// call's record written (finalize.ts).

export interface CallAudio {
  audioInput: voice.AudioInput & { onFrame?(listener: (frame: AudioFrame) => void): () => void };
  audioOutput: voice.AudioOutput & { onPlayed?(listener: (frame: AudioFrame, playedAt: number) => void): () => void };
}

export interface RunCallOptions extends CallAudio {
  prisma: PrismaClient;
  callId?: number;
  callSid?: string;
  /** Aborted when the caller hangs up (the transport's side closed); a string reason becomes the end reason. */
  signal?: AbortSignal;
  /** Overrides the VAD the assistant's endpointing calls for (agent/turn/vad.ts). */
  vad?: VAD;
  access?: VendorAccess;
  /** Where the recording's tracks are stored; defaults to files under `dataDir`. */
  storage?: RecordingStorage;
  /** DATA_DIR (default `./.data`): the recording is spooled under it while the call runs, whatever the storage. */
  dataDir?: string;
  maxDurationMs?: number;
  /** How often the call's heartbeat is renewed (agent/call/recovery.ts). */
  heartbeatIntervalMs?: number;
  /** Tools the assistant may call during the call; default: the assistant's enabled assigned tools. */
  tools?: llm.ToolContextLike;
  /** Opens the tools' stored credentials; default: the key in DATA_DIR (lib/secret-box.ts). */
  secrets?: SecretBox;
  /** Let HTTP tools reach loopback and private addresses (WEBHOOK_ALLOW_PRIVATE_TARGETS). */
  allowPrivateToolTargets?: boolean;
  /** What the transport can do to the phone line (transfer, DTMF), or how to make it from the call's row; default: a web call's, neither. */
  line?: CallLine | ((call: CallRow) => CallLine | undefined);
  /** Knowledge search; default: one per process and database, with the vendor keys of `access`. */
  knowledge?: KnowledgeSearch;
  /** How long past the end of a turn its reply waits for knowledge passages; 250 ms unless told (agent/call/turn-prompt.ts). */
  retrievalTimeoutMs?: number;
  /** Sees the session once it runs (transports attach text outputs; tests observe). */
  onSession?: (session: voice.AgentSession) => void;
  /**
   * The answering-machine detector's thresholds for a campaign call without a carrier detector; default the measured
   * DEFAULT_DETECTOR (modules/campaigns/machine-detector.ts).
   */
  machineDetector?: Partial<MachineDetectorSettings>;
}

export interface CallResult {
  callId: number;
  callSid: string;
  status: 'completed' | 'failed';
  endReason: string;
  transcript: TranscriptEntry[];
}
export async function runCall(options: RunCallOptions): Promise<CallResult> {
  const logger = log();
  // Job processes rebuild the framework's logger: each call makes sure transcripts stay out of its info lines.
  keepPiiOutOfInfoLogs(logger);
  const { prisma } = options;
  const found = await findCall(prisma, options);
  // One trace per call, joined to the request that created it (its row keeps that request's trace context), so an
  // operator follows a call from the API process that took it to the worker that ran it.
  const attributes = {
    'call.sid': found.callSid,
    'call.transport': found.transport,
    'call.direction': found.direction,
    'organization.id': found.organizationId,
  };
  return inSpan('call', attributes, () => runFoundCall(options, found), contextOfTraceParent(found.traceParent));
}

/** The call from its row found to its record written. */
async function runFoundCall(options: RunCallOptions, found: CallRow): Promise<CallResult> {
  const { prisma } = options;
  // One box opens the assistant's vendor keys and its tools' credentials.
  const secrets = options.secrets ?? new SecretBox(loadSecretsKey(undefined, options.dataDir ?? DEFAULT_DATA_DIR));
  // A test call from the builder runs the assistant's draft; every other call its current version.
  const loaded =
    found.assistantId === null
      ? null
      : await loadAssistantVersioned(prisma, found.organizationId, found.assistantId, secrets, { draft: found.assistantDraft }).catch(() => null);
  // The stricter of the organisation's mode and the assistant's own.
  const privacy = await callPrivacyMode(prisma, found.organizationId, loaded?.settings.privacy_mode);
  // A metadata-only call makes no recording: nothing of the audio ever reaches the disk.
  const stored =
    loaded && privacy === 'metadata_only'
      ? { ...loaded.settings, recording_settings: { ...loaded.settings.recording_settings, recording_enabled: false } }
      : (loaded?.settings ?? null);
  const startedAt = new Date();
  // The call records the version of its assistant it runs.
  const call = await markCallStarted(prisma, found, startedAt, loaded && { version: loaded.version, draft: loaded.draft }, privacy);
  // Counted on the process's metrics from here to its end; a call that throws on its way counts as failed.
  const recordEnd = callStarted(call.transport);
  const result = await runStartedCall({ ...options, secrets }, call, startedAt, stored, privacy).catch((error: unknown) => {
    recordEnd('failed');
    throw error;
  });
  recordEnd(result.status);
  return result;
}

/** The call from its row marked started to its record written. */
async function runStartedCall(
  options: RunCallOptions & { secrets: SecretBox },
  call: CallRow,
  startedAt: Date,
  stored: NonNullable<Awaited<ReturnType<typeof loadAssistantVersioned>>>['settings'] | null,
  privacy: PrivacyMode,
): Promise<CallResult> {
  const { prisma } = options;
  const logFields = { callSid: call.callSid, callId: call.id };
  const stopHeartbeat = startHeartbeat(prisma, call.id, { intervalMs: options.heartbeatIntervalMs, logFields });
  const ending = new CallEnding();
  const lineTools = new CallLineTools({
    line: lineOf(call, options.line),
    ending,
    logFields,
    // Recorded beside the call, not in its way: a transfer's outcome is not held up by the database.
    onTransfer: (report) =>
      void recordCallTransfer(prisma, call, report).catch((err: unknown) => log().warn({ ...logFields, err }, 'call.transfer event not recorded')),
  });
  const scene = {
    options,
    call,
    startedAt,
    ending,
    lineTools,
    step: startSteps(ending, logFields),
    collected: new CollectedValues(),
    logFields,
    privacy,
  };

  const conversation = await startConversation(scene, stored);
  const outcome = await ending.settled;
  const { endedAt, said } = await stopConversation(conversation, outcome, scene);
  await finalizeCall(prisma, call, {
    ending: outcome,
    endedAt,
    transcript: said,
    recording: conversation.recording,
    storage: recordingStorageOf(options),
    analysis: conversation.analysis,
    missingVariables: conversation.missingVariables,
    collectedValues: privacy === 'metadata_only' ? null : scene.collected.record(),
    privacy,
    usage: conversation.usage,
    stopHeartbeat,
    logFields,
  });
  log().info({ ...logFields, status: outcome.status, endReason: outcome.reason }, 'call ended');
  return { callId: call.id, callSid: call.callSid, status: outcome.status, endReason: outcome.reason, transcript: said.spoken };
}
