import type { AudioFrame } from '@livekit/rtc-node';
import { log, voice, type VAD } from '@livekit/agents';
import path from 'node:path';
import { CallRecorder, type Track } from '../media/call-recorder.js';
import { LocalFileStorage, type RecordingStorage } from '../media/recording-storage.js';
import type { PrismaClient } from '../prisma/client.js';
import { loadAssistantSettings } from '../api/services/assistants.js';
import { AssistantSettings, DEFAULT_IDLE_MESSAGE, DEFAULT_SYSTEM_PROMPT } from '../shared/assistant-settings.js';
import type { TranscriptEntry } from '../shared/call-events.js';
import { renderPrompt, renderTemplate, type TemplateValues } from '../shared/template-variables.js';
import { appendCallTurn, CallNotRunnableError, findCall, finishCall, loadContactFields, markCallStarted, touchCallHeartbeat, type StoredRecording, type StoredTurn } from './call-store.js';
import { CALL_HEARTBEAT_INTERVAL_MS } from './call-recovery.js';
import { playApology } from './apology.js';
import { analyzeCall } from './post-call-analysis.js';
import { vendorAccessFromEnv, type VendorAccess } from './providers/speech-providers.js';
import { buildSessionOptions, secondsToMs } from './session-config.js';
import { summarizeLatency, turnLatency } from './turn-metrics.js';
import { loadVad } from './vad.js';

// One call, start to end, over any pair of audio input and output: a LiveKit room's tracks, the built-in WebSocket
// transport, or a test's scripted caller. Every transport calls this one function.

/** A call longer than this is ended (`max_duration`); a forgotten open line must not run for days. */
export const DEFAULT_MAX_CALL_DURATION_MS = 60 * 60 * 1000;
/** Said before hanging up after the last idle prompt went unanswered. */
export const IDLE_GOODBYE = "It seems you're no longer there, so I'll end the call now. Goodbye!";
/** Idle prompts when `idle_timeout` is set and `max_idle_messages` is not. */
export const DEFAULT_MAX_IDLE_MESSAGES = 1;
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
  /** Overrides the VAD the assistant's endpointing calls for (agent/vad.ts). */
  vad?: VAD;
  access?: VendorAccess;
  /** Recording storage; defaults to files under `dataDir`. */
  storage?: RecordingStorage;
  dataDir?: string;
  maxDurationMs?: number;
  /** How often the call's heartbeat is renewed (agent/call-recovery.ts). */
  heartbeatIntervalMs?: number;
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
  const { prisma } = options;
  let call = await findCall(prisma, options);
  const stored = call.assistantId === null ? null : await loadAssistantSettings(prisma, call.organizationId, call.assistantId).catch(() => null);
  const startedAt = new Date();
  call = await markCallStarted(prisma, call, startedAt);
  const callLog = { callSid: call.callSid, callId: call.id };

  const turns: StoredTurn[] = [];
  const recorder = new CallRecorder(startedAt.getTime());
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
    const values: TemplateValues = {
      variables: (call.variables ?? {}) as Record<string, unknown>,
      contact: await loadContactFields(prisma, call.organizationId, call.contactId),
    };
    const prompt = renderPrompt(settings.llm_settings.system_prompt ?? DEFAULT_SYSTEM_PROMPT, values);
    const welcome = renderTemplate(call.welcomeMessage ?? settings.llm_settings.welcome_message ?? '', values, 'speech');
    const idleMessage = renderTemplate(settings.idle_message ?? DEFAULT_IDLE_MESSAGE, values, 'speech');
    missing = [...new Set([...prompt.missing, ...welcome.missing, ...idleMessage.missing])];
    systemPrompt = prompt.text;

    const vad = options.vad ?? (await loadVad(secondsToMs(settings.stt_settings.turn_detection.min_endpointing_delay)));
    const parts = await buildSessionOptions(settings, { vad, access: options.access ?? vendorAccessFromEnv() });
    chatLlm = parts.llm;
    session = new voice.AgentSession(parts.options);
    session.input.audio = options.audioInput;
    session.output.audio = options.audioOutput;

    const rec = settings.recording_settings;
    if (rec.recording_enabled) {
      if (options.audioInput.onFrame) unsubscribe.push(options.audioInput.onFrame((f) => recorder.addUser(f)));
      if (options.audioOutput.onPlayed) unsubscribe.push(options.audioOutput.onPlayed((f, at) => recorder.addAssistant(f, at)));
    }

    const relMs = (epochMs: number) => Math.max(Math.round(epochMs - startedAt.getTime()), 0);
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

    await session.start({ agent: new voice.Agent({ instructions: systemPrompt }), record: false });
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
    logger.error({ ...callLog, err: (error as Error).message }, 'call could not start');
    end({ status: 'failed', reason: error instanceof CallNotRunnableError ? error.message.replace(/\s+/g, '_') : 'configuration_error', apology: true });
  }

  const outcome = await ending;
  for (const t of timers) clearTimeout(t);
  clearInterval(heartbeat);
  if (outcome.apology) await playApology(options.audioOutput, FINAL_PLAYOUT_TIMEOUT_MS).catch(() => {});
  if (session) {
    await withTimeout(session.close(), FINAL_PLAYOUT_TIMEOUT_MS).catch(() => {});
  }
  const endedAt = new Date();
  recorder.stop(endedAt.getTime());
  await turnWrites;
  for (const u of unsubscribe) u();

  const transcript: TranscriptEntry[] = turns.map(({ metrics: _m, ...t }) => t);
  const recordings = settings ? await saveRecordings(settings, recorder, call.callSid, options).catch((error: unknown) => {
    logger.error({ ...callLog, err: (error as Error).message }, 'recording could not be saved');
    return [];
  }) : [];
  const analysis = chatLlm && outcome.status === 'completed' ? await analyzeCall(chatLlm, systemPrompt, transcript) : { summary: null, outcomes: null, error: outcome.status === 'failed' ? 'call failed' : 'no model' };
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
  logger.info({ ...callLog, status: outcome.status, endReason: outcome.reason }, 'call ended');
  return { callId: call.id, callSid: call.callSid, status: outcome.status, endReason: outcome.reason, transcript };
}

async function saveRecordings(settings: AssistantSettings, recorder: CallRecorder, callSid: string, options: RunCallOptions): Promise<StoredRecording[]> {
  const rec = settings.recording_settings;
  if (!rec.recording_enabled) return [];
  const tracks: Track[] = [];
  if (rec.record_user_audio) tracks.push('user');
  if (rec.record_assistant_audio) tracks.push('assistant');
  if (rec.record_mixed_audio) tracks.push('mixed');
  if (tracks.length === 0) return [];
  const storage = options.storage ?? new LocalFileStorage(path.resolve(options.dataDir ?? './.data'));
  const out: StoredRecording[] = [];
  for (const r of await recorder.render(tracks, rec.recording_format)) {
    const storageKey = `recordings/${callSid}/${r.track}.${r.format}`;
    const put = await storage.put(storageKey, r.bytes, r.format === 'mp3' ? 'audio/mpeg' : 'audio/wav');
    out.push({ track: r.track, format: r.format, storageKey, duration_ms: r.durationMs, size_bytes: r.bytes.length, ...(put.path ? { path: put.path } : {}) });
  }
  return out;
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
