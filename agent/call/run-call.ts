import type { AudioFrame } from '@livekit/rtc-node';
import { log, voice, type llm, type VAD } from '@livekit/agents';
import { CallRecorder } from '../../media/call-recorder.js';
import { spoolDirOf } from '../../media/recording-spool.js';
import type { RecordingStorage } from '../../media/recording-storage.js';
import type { PrismaClient } from '../../prisma/client.js';
import { loadAssistantSettings } from '../../modules/assistants/store.js';
import { AssistantSettings, DEFAULT_IDLE_MESSAGE, DEFAULT_SYSTEM_PROMPT } from '../../modules/assistants/settings.js';
import { DEFAULT_DATA_DIR } from '../../lib/config.js';
import type { ToolCallEntry, TranscriptEntry } from '../../modules/calls/events.js';
import { renderPrompt, renderTemplate, type TemplateValues } from '../../modules/assistants/templates.js';
import { appendCallTurn, CallNotRunnableError, findCall, finishCall, loadContactFields, markCallStarted, touchCallHeartbeat, type StoredRecording, type StoredTurn } from '../../modules/calls/store.js';
import { CALL_HEARTBEAT_INTERVAL_MS } from './recovery.js';
import { recordedTracks, recordingStorageOf, storedRecording } from './recording.js';
import { playApology } from './apology.js';
import { keepPiiOutOfInfoLogs } from '../logging.js';
import { analyzeCall } from './analysis.js';
import { vendorAccessFromEnv, type VendorAccess } from '../providers/speech-providers.js';
import { buildSessionOptions, MissingCredentialsError, secondsToMs } from './session-config.js';
import { summarizeLatency, turnLatency } from '../turn/metrics.js';
import { loadVad } from '../turn/vad.js';

// One call, start to end, over any pair of audio input and output: a LiveKit room's tracks, the built-in WebSocket
// transport, or a test's scripted caller. Every transport calls this one function.

/** A call longer than this is ended (`max_duration`); a forgotten open line must not run for days. */
export const DEFAULT_MAX_CALL_DURATION_MS = 60 * 60 * 1000;
/** Said before hanging up after the last idle prompt went unanswered. */
export const IDLE_GOODBYE = "It seems you're no longer there, so I'll end the call now. Goodbye!";
/** Idle prompts when `idle_timeout` is set and `max_idle_messages` is not. */
export const DEFAULT_MAX_IDLE_MESSAGES = 1;
/** The end reason of a call whose STT, TTS or every LLM lacks its key (or a custom LLM its address). */
export const MISSING_CREDENTIALS = 'missing_credentials';
/** How long the goodbye or apology may take to play before the line is closed anyway. */
const FINAL_PLAYOUT_TIMEOUT_MS = 15_000;

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
  /** Tools the assistant may call during the call. */
  tools?: llm.ToolContextLike;
  /** Sees the session once it runs (transports attach text outputs; tests observe). */
  onSession?: (session: voice.AgentSession) => void;
}

export interface CallResult {
  callId: number;
  callSid: string;
  status: 'completed' | 'failed';
  endReason: string;
  transcript: TranscriptEntry[];
}


type Ending = { status: 'completed' | 'failed'; reason: string; apology?: boolean };

export async function runCall(options: RunCallOptions): Promise<CallResult> {
  const logger = log();
  // Job processes rebuild the framework's logger: each call makes sure transcripts stay out of its info lines.
  keepPiiOutOfInfoLogs(logger);
  const { prisma } = options;
  let call = await findCall(prisma, options);
  const stored = call.assistantId === null ? null : await loadAssistantSettings(prisma, call.organizationId, call.assistantId).catch(() => null);
  const startedAt = new Date();
  call = await markCallStarted(prisma, call, startedAt);
  const callLog = { callSid: call.callSid, callId: call.id };

  const turns: StoredTurn[] = [];
  const pendingToolCalls: ToolCallEntry[] = [];
  const relMs = (epochMs: number) => Math.max(Math.round(epochMs - startedAt.getTime()), 0);
  let recorder: CallRecorder | undefined;
  const unsubscribe: Array<() => void> = [];
  let session: voice.AgentSession | undefined;
  let systemPrompt = DEFAULT_SYSTEM_PROMPT;
  let chatLlm: Awaited<ReturnType<typeof buildSessionOptions>>['llm'] | undefined;
  let missing: string[] = [];
  let settings: AssistantSettings | undefined;

  let resolveEnding!: (ending: Ending) => void;
  const ending = new Promise<Ending>((resolve) => (resolveEnding = resolve));
  let ended = false;
  const end = (e: Ending) => {
    if (ended) return;
    ended = true;
    resolveEnding(e);
  };

  const timers: NodeJS.Timeout[] = [];
  let turnWrites: Promise<void> = Promise.resolve();
  const heartbeat = setInterval(() => {
    void touchCallHeartbeat(prisma, call.id, new Date()).catch((error: unknown) => logger.warn({ ...callLog, err: (error as Error).message }, 'heartbeat not stored'));
  }, options.heartbeatIntervalMs ?? CALL_HEARTBEAT_INTERVAL_MS);
  try {
    if (!stored) throw new CallNotRunnableError('assistant not found');
    settings = AssistantSettings.parse(stored);
    const rec = settings.recording_settings;
    // Listening from here, before the session's setup (VAD and vendors, up to a second): the caller's track starts with
    // the call, so it lines up with the assistant's, whose frames are placed by the time they played.
    if (recordedTracks(rec).length > 0) {
      const r = new CallRecorder(startedAt.getTime(), spoolDirOf(options.dataDir ?? DEFAULT_DATA_DIR, call.callSid));
      recorder = r;
      if (options.audioInput.onFrame) unsubscribe.push(options.audioInput.onFrame((f) => r.addUser(f)));
      if (options.audioOutput.onPlayed) unsubscribe.push(options.audioOutput.onPlayed((f, at) => r.addAssistant(f, at)));
    }
    const values: TemplateValues = {
      variables: (call.variables ?? {}) as Record<string, unknown>,
      contact: await loadContactFields(prisma, call.organizationId, call.contactId),
    };
    const prompt = renderPrompt(settings.llm_settings.system_prompt ?? DEFAULT_SYSTEM_PROMPT, values);
    const welcome = renderTemplate(call.welcomeMessage ?? settings.llm_settings.welcome_message ?? '', values, 'speech');
    const idleMessage = renderTemplate(settings.idle_message ?? DEFAULT_IDLE_MESSAGE, values, 'speech');
    missing = [...new Set([...prompt.missing, ...welcome.missing, ...idleMessage.missing])];
    systemPrompt = prompt.text;

    const vad = options.vad ?? (await loadVad(secondsToMs(settings.stt_settings.turn_detection.min_endpointing_delay), settings.stt_settings.turn_detection.mode));
    const parts = await buildSessionOptions(settings, { vad, access: options.access ?? vendorAccessFromEnv() });
    chatLlm = parts.llm;
    session = new voice.AgentSession(parts.options);
    session.input.audio = options.audioInput;
    session.output.audio = options.audioOutput;

    session.on(voice.AgentSessionEventTypes.FunctionToolsExecuted, (ev) => {
      ev.functionCalls.forEach((fc, i) => {
        const output = ev.functionCallOutputs[i];
        pendingToolCalls.push({ name: fc.name, arguments: parseJson(fc.args), output: output ? parseJson(output.output) : null, is_error: output?.isError ?? false, at_ms: relMs(fc.createdAt) });
      });
    });
    session.on(voice.AgentSessionEventTypes.ConversationItemAdded, ({ item }) => {
      if (item.type !== 'message' || (item.role !== 'user' && item.role !== 'assistant')) return;
      const text = item.textContent ?? '';
      if (!text.trim()) return;
      const m = item.metrics;
      const start = m.startedSpeakingAt !== undefined ? m.startedSpeakingAt * 1000 : item.createdAt;
      const stop = m.stoppedSpeakingAt !== undefined ? m.stoppedSpeakingAt * 1000 : Date.now();
      const turn: StoredTurn = {
        role: item.role,
        text,
        start_ms: relMs(start),
        end_ms: relMs(stop),
        interrupted: item.interrupted,
        metrics: item.role === 'assistant' ? turnLatency(m, turns.findLast((t) => t.role === 'user')) : null,
        // The tools the assistant called before this reply, with what they returned.
        ...(item.role === 'assistant' && pendingToolCalls.length > 0 ? { tool_calls: pendingToolCalls.splice(0) } : {}),
      };
      const position = turns.push(turn) - 1;
      // Stored now, in order, so a call whose process dies keeps its transcript; a failed write is retried at the end.
      turnWrites = turnWrites.then(() =>
        appendCallTurn(prisma, call.id, position, turn).catch((error: unknown) => logger.warn({ ...callLog, err: (error as Error).message }, 'turn not stored yet')),
      );
    });
    session.on(voice.AgentSessionEventTypes.Close, (ev) => {
      if (ev.error) end({ status: 'failed', reason: `${ev.error.type}`, apology: true });
      else end({ status: 'completed', reason: 'session_closed' });
    });
    session.on(voice.AgentSessionEventTypes.Error, (ev) => {
      if (!ev.error || (ev.error as { recoverable?: boolean }).recoverable) return;
      logger.warn({ ...callLog, type: (ev.error as { type?: string }).type }, 'vendor error in call');
    });

    // Idle prompts: after idle_timeout of silence from both sides, ask; after the last prompt, say goodbye and hang up.
    if (settings.idle_timeout !== null) {
      const idleMs = secondsToMs(settings.idle_timeout);
      const maxPrompts = settings.max_idle_messages ?? DEFAULT_MAX_IDLE_MESSAGES;
      let prompts = 0;
      let quietSince = Date.now();
      const activity = () => void (quietSince = Date.now());
      session.on(voice.AgentSessionEventTypes.AgentStateChanged, activity);
      session.on(voice.AgentSessionEventTypes.UserStateChanged, (ev) => {
        activity();
        if (ev.newState === 'speaking') prompts = 0;
      });
      const s = session;
      const check = setInterval(() => {
        if (ended || s.agentState !== 'listening' || s.userState === 'speaking' || Date.now() - quietSince < idleMs) return;
        quietSince = Date.now();
        if (prompts < maxPrompts) {
          prompts++;
          s.say(idleMessage.text || DEFAULT_IDLE_MESSAGE, { allowInterruptions: true });
        } else {
          const goodbye = s.say(IDLE_GOODBYE, { allowInterruptions: false });
          void withTimeout(goodbye.waitForPlayout(), FINAL_PLAYOUT_TIMEOUT_MS).then(() => end({ status: 'completed', reason: 'idle_timeout' }));
        }
      }, 100);
      timers.push(check);
    }

    // The transport aborts with no reason when the caller hangs up; the worker aborts with its own reason on shutdown.
    const hangup = () => end({ status: 'completed', reason: typeof options.signal?.reason === 'string' ? options.signal.reason : 'customer_hangup' });
    options.signal?.addEventListener('abort', hangup, { once: true });
    if (options.signal?.aborted) hangup();
    timers.push(setTimeout(() => end({ status: 'completed', reason: 'max_duration' }), options.maxDurationMs ?? DEFAULT_MAX_CALL_DURATION_MS));

    await session.start({ agent: new voice.Agent({ instructions: systemPrompt, ...(options.tools ? { tools: options.tools } : {}) }), record: false });
    options.onSession?.(session);
    logger.info({ ...callLog, stt: settings.stt_settings.provider, tts: settings.tts_settings.provider, llm: settings.llm_provider }, 'call started');

    if (rec.recording_enabled && rec.consent_required && rec.consent_prompt.trim()) {
      session.say(renderTemplate(rec.consent_prompt, values, 'speech').text, { allowInterruptions: false });
    }
    if (welcome.text.trim()) {
      const interruption = settings.interruption_settings;
      session.say(welcome.text, { allowInterruptions: interruption.allow_interruptions && interruption.allow_welcome_interruption });
    }
  } catch (error) {
    if (error instanceof MissingCredentialsError) {
      // Names of variables and settings only, never a value.
      logger.warn(
        { ...callLog, stages: error.stages, variables: error.missing.map((m) => m.variable), fields: error.missing.map((m) => m.field) },
        'call cannot start: a vendor credential is not set',
      );
      end({ status: 'failed', reason: MISSING_CREDENTIALS, apology: true });
    } else {
      logger.error({ ...callLog, err: (error as Error).message }, 'call could not start');
      end({ status: 'failed', reason: error instanceof CallNotRunnableError ? error.message.replace(/\s+/g, '_') : 'configuration_error', apology: true });
    }
  }

  const outcome = await ending;
  for (const t of timers) clearTimeout(t);
  if (outcome.apology) await playApology(options.audioOutput, FINAL_PLAYOUT_TIMEOUT_MS).catch(() => {});
  if (session) {
    await withTimeout(session.close(), FINAL_PLAYOUT_TIMEOUT_MS).catch(() => {});
  }
  const endedAt = new Date();
  recorder?.stop(endedAt.getTime());
  await turnWrites;
  for (const u of unsubscribe) u();

  const transcript: TranscriptEntry[] = turns.map(({ metrics: _m, ...t }) => t);
  let recordingSaved = false;
  const recordings = settings && recorder ? await saveRecording(settings, recorder, call.callSid, options).then(
    (stored) => {
      recordingSaved = true;
      return stored;
    },
    (error: unknown) => {
      // The spool stays under DATA_DIR, so the audio is still there for an operator.
      logger.error({ ...callLog, err: (error as Error).message, spoolDir: recorder?.spoolDir }, 'recording could not be saved');
      return [];
    },
  ) : [];
  const analysis = chatLlm && outcome.status === 'completed' ? await analyzeCall(chatLlm, systemPrompt, transcript) : { summary: null, outcomes: null, error: outcome.status === 'failed' ? 'call failed' : 'no model' };
  // Tool calls after the last reply (the call ended before the assistant spoke again) still belong to the transcript.
  if (pendingToolCalls.length > 0) {
    const at = relMs(endedAt.getTime());
    turns.push({ role: 'assistant', text: '', start_ms: at, end_ms: at, interrupted: false, metrics: null, tool_calls: pendingToolCalls.splice(0) });
  }
  try {
    await finishCall(prisma, call, {
      status: outcome.status,
      endReason: outcome.reason,
      endedAt,
      summary: analysis.summary,
      outcomes: analysis.outcomes,
      analysisError: analysis.error,
      missingVariables: missing,
      metrics: summarizeLatency(turns),
      turns,
      recordings,
    });
  } finally {
    // Beating until the record is written: rendering an hour's recording and the analysis can take most of a minute,
    // and a silent call that long would be taken for a dead one by the recovery sweep.
    clearInterval(heartbeat);
  }
  // Only now: a process that died before the call's record listed the tracks leaves the spool to the recovery sweep.
  if (recordingSaved) await recorder?.discard().catch((error: unknown) => logger.warn({ ...callLog, err: (error as Error).message }, 'recording spool not removed'));
  logger.info({ ...callLog, status: outcome.status, endReason: outcome.reason }, 'call ended');
  return { callId: call.id, callSid: call.callSid, status: outcome.status, endReason: outcome.reason, transcript };
}

async function saveRecording(settings: AssistantSettings, recorder: CallRecorder, callSid: string, options: RunCallOptions): Promise<StoredRecording[]> {
  const rec = settings.recording_settings;
  const stored = await recorder.save(recordingStorageOf(options), callSid, recordedTracks(rec), rec.recording_format);
  return stored.map(storedRecording);
}

/**
 * A tool's arguments or result as a value: the model sends arguments as JSON text (sometimes broken), and the framework
 * serialises a tool's return value to JSON (a string result arrives quoted), but passes an error's message as it is.
 */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
