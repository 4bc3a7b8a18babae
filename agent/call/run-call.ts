import type { AudioFrame } from '@livekit/rtc-node';
import { log, voice, type llm, type VAD } from '@livekit/agents';
import type { RecordingStorage } from '../../media/recording/storage.js';
import type { PrismaClient } from '../../prisma/client.js';
import { settledWithin } from '../../lib/async.js';
import {
  AssistantSettings,
  DEFAULT_IDLE_MESSAGE,
  DEFAULT_SYSTEM_PROMPT,
  loadAssistantSettings,
  renderPrompt,
  renderTemplate,
  type TemplateValues,
} from '../../modules/assistants/index.js';
import {
  appendCallTurn,
  CallNotRunnableError,
  type CallRow,
  findCall,
  loadContactFields,
  markCallStarted,
  type TranscriptEntry,
} from '../../modules/calls/index.js';
import { keepPiiOutOfInfoLogs } from '../logging.js';
import { vendorAccessFromEnv, type VendorAccess } from '../providers/speech-providers.js';
import { loadVad } from '../turn/vad.js';
import { playApology } from './apology.js';
import { CallEnding, FINAL_PLAYOUT_TIMEOUT_MS, startSteps, watchForEnd } from './ending.js';
import { finalizeCall } from './finalize.js';
import { startHeartbeat } from './heartbeat.js';
import { idlePromptsOf, startIdlePrompts } from './idle-prompts.js';
import { recordingStorageOf, startRecording } from './recording.js';
import { prepareWelcome } from '../providers/local/local-tts.js';
import type { TurnTaking } from '../turn/turn-taking.js';
import { buildAssistantAgent } from './assistant-agent.js';
import { CollectedValues } from './collected-values.js';
import { buildSessionOptions, llmEndpoints, secondsToMs } from './session-config.js';
import { meterUsage, type CallVendors } from './usage.js';
import { captureTranscript } from './transcript.js';
import { callToolContext, type CallToolOptions } from './tools.js';
import { CallLineTools, lineOf } from './line-tools.js';
import type { CallLine } from './line.js';
import { ToolRuns } from './tool-runs.js';
import { type CallTool, type HttpToolResult, loadCallTools } from '../../modules/tools/index.js';
import { loadCallPlaybooks, type CallPlaybook } from '../../modules/playbooks/index.js';
import { loadSecretsKey, SecretBox } from '../../lib/secret-box.js';
import { DEFAULT_DATA_DIR } from '../../lib/config.js';
import type { KnowledgeSearch } from '../../modules/knowledge/index.js';
import { processKnowledge, turnPromptOf } from './knowledge.js';
import { watchForMachine } from './voicemail.js';

// One call, start to end, over any pair of audio input and output: a LiveKit room's tracks, the built-in WebSocket
// transport, or a test's scripted caller. Every transport calls this one function. It puts the call's parts together:
// the heartbeat (heartbeat.ts), the recording (recording.ts), the transcript (transcript.ts), the ending
// (ending.ts), the idle prompts (idle-prompts.ts), and at the end the call's record (finalize.ts).

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
  // One box opens the assistant's vendor keys and its tools' credentials.
  const secrets = options.secrets ?? new SecretBox(loadSecretsKey(undefined, options.dataDir ?? DEFAULT_DATA_DIR));
  const stored = found.assistantId === null ? null : await loadAssistantSettings(prisma, found.organizationId, found.assistantId, secrets).catch(() => null);
  const startedAt = new Date();
  const call = await markCallStarted(prisma, found, startedAt);
  const logFields = { callSid: call.callSid, callId: call.id };
  const stopHeartbeat = startHeartbeat(prisma, call.id, { intervalMs: options.heartbeatIntervalMs, logFields });
  const ending = new CallEnding();
  const lineTools = new CallLineTools({ line: lineOf(call, options.line), ending, logFields });

  const step = startSteps(ending, logFields);
  const settings = await step(() => settingsOf(stored));
  // Listening before the session's setup (VAD and vendors, up to a second), so that no caller audio is missed.
  const recording = settings && (await step(() => startRecording(settings.recording_settings, options, { callSid: call.callSid, startedAt: startedAt.getTime(), dataDir: options.dataDir })));
  const texts = settings && (await step(() => renderTexts(prisma, call, settings)));
  const built = settings && texts && (await step(() => buildSession(settings, options)));
  const session = built?.session;
  if (session && texts) prepareWelcome(session.tts, texts.welcome);
  const toolResults = new Map<string, HttpToolResult>();
  const runs = settings && new ToolRuns({ minInterruptionWords: settings.interruption_settings.min_interruption_words, interruptions: settings.interruption_settings.allow_interruptions, logFields });
  const knowledge = options.knowledge ?? processKnowledge(prisma, options.access ?? vendorAccessFromEnv());
  const knowledgeToolSearch =
    call.assistantId === null ? undefined : (query: string, signal: AbortSignal) => knowledge.forAssistant(call.organizationId, call.assistantId!, query, { signal }).then((found) => found.result);
  const prompt = settings && built && turnPromptOf(settings, { prisma, knowledge, organizationId: call.organizationId, assistantId: call.assistantId, model: built.model, retrievalTimeoutMs: options.retrievalTimeoutMs });
  const tools = settings && texts && runs && (await step(() => toolsOf(call, texts.values, { ...options, secrets }, runs, (id, result) => toolResults.set(id, result), lineTools, knowledgeToolSearch)));
  const transcript =
    session &&
    captureTranscript(session, {
      startedAt: startedAt.getTime(),
      store: (position, turn) => appendCallTurn(prisma, call.id, position, turn),
      logFields,
      decisionForReply: () => built.turns.takeDecision(),
      retrievalForReply: () => prompt?.takeRetrieval(),
      toolCallDetail: (id) => {
        const result = toolResults.get(id);
        return { ...(result && { http_status: result.status, duration_ms: result.duration_ms }), ...runs?.detail(id) };
      },
    });
  const usage =
    session &&
    settings &&
    meterUsage(session, built.model, callVendors(settings, options.access ?? vendorAccessFromEnv()), {
      stt: session.stt?.capabilities.streaming ?? true,
      tts: session.tts?.capabilities.streaming ?? true,
    });
  const idle = settings && texts && idlePromptsOf(settings, texts.idleMessage);
  const stops = session ? [watchForEnd(session, ending, { signal: lineTools.hangupSignal(options.signal), maxDurationMs: options.maxDurationMs, logFields }), built.turns.attach(session)] : [];
  if (session && runs) stops.push(runs.attach(session));
  if (session && prompt) stops.push(prompt.attach(session));
  if (session && idle) stops.push(startIdlePrompts(session, ending, idle, () => runs?.busy ?? false));
  const collected = new CollectedValues();
  const agent = session && texts && tools && buildAssistantAgent({ instructions: texts.prompt, tools: tools.assigned, playbooks: tools.playbooks, toolsFor: tools.toolsFor, turns: built.turns, prompt, collected });
  if (session && settings && texts && agent) await step(() => startSession(session, agent, settings, texts, options, logFields));
  if (session && texts && !ending.ended) stops.push(await watchForMachine(prisma, call, session, ending, texts.values, logFields, options.audioInput).catch(() => () => {}));

  const outcome = await ending.settled;
  for (const stop of stops) stop();
  // The call ends either way; a voice that could not speak the apology is for the operator to hear of.
  if (outcome.apology) await playApology(options.audioOutput, FINAL_PLAYOUT_TIMEOUT_MS).catch((err: unknown) => logger.warn({ ...logFields, err }, 'apology not played'));
  if (session) await settledWithin(session.close(), FINAL_PLAYOUT_TIMEOUT_MS);
  const endedAt = new Date();
  recording?.stop(endedAt.getTime());
  const said = (await transcript?.close(endedAt.getTime())) ?? { spoken: [], turns: [] };
  await finalizeCall(prisma, call, {
    ending: outcome,
    endedAt,
    transcript: said,
    recording,
    storage: recordingStorageOf(options),
    analysis: built && texts ? { model: built.model, systemPrompt: texts.prompt } : undefined,
    missingVariables: texts?.missing ?? [],
    collectedValues: collected.record(),
    usage: usage || undefined,
    stopHeartbeat,
    logFields,
  });
  logger.info({ ...logFields, status: outcome.status, endReason: outcome.reason }, 'call ended');
  return { callId: call.id, callSid: call.callSid, status: outcome.status, endReason: outcome.reason, transcript: said.spoken };
}

/** The vendors the settings name, for the usage meter: the STT, the TTS, the LLM and its fallbacks. */
function callVendors(settings: AssistantSettings, access: VendorAccess): CallVendors {
  return {
    stt: { provider: settings.stt_settings.provider, model: settings.stt_settings.model },
    tts: { provider: settings.tts_settings.provider, model: settings.tts_settings.model_id },
    llm: llmEndpoints(settings, access).map((e) => ({ provider: e.provider, model: e.model })),
  };
}

function settingsOf(stored: unknown): AssistantSettings {
  if (!stored) throw new CallNotRunnableError('assistant not found');
  return AssistantSettings.parse(stored);
}

interface CallTexts {
  prompt: string;
  /** Empty when the call has no welcome. */
  welcome: string;
  idleMessage: string;
  /** Template variables the texts named and the call did not have. */
  missing: string[];
  values: TemplateValues;
}

/** The assistant's texts with the call's variables and its contact's fields filled in. */
async function renderTexts(prisma: PrismaClient, call: CallRow, settings: AssistantSettings): Promise<CallTexts> {
  const values: TemplateValues = {
    variables: (call.variables ?? {}) as Record<string, unknown>,
    contact: await loadContactFields(prisma, call.organizationId, call.contactId),
  };
  const prompt = renderPrompt(settings.llm_settings.system_prompt ?? DEFAULT_SYSTEM_PROMPT, values);
  const welcome = renderTemplate(call.welcomeMessage ?? settings.llm_settings.welcome_message ?? '', values, 'speech');
  const idleMessage = renderTemplate(settings.idle_message ?? DEFAULT_IDLE_MESSAGE, values, 'speech');
  const missing = [...new Set([...prompt.missing, ...welcome.missing, ...idleMessage.missing])];
  return { prompt: prompt.text, welcome: welcome.text, idleMessage: idleMessage.text, missing, values };
}

/** The session the settings ask for, on the call's audio; its LLM also runs the post-call analysis. */
async function buildSession(settings: AssistantSettings, options: RunCallOptions): Promise<{ session: voice.AgentSession; model: llm.LLM; turns: TurnTaking }> {
  const turnDetection = settings.stt_settings.turn_detection;
  const vad = options.vad ?? (await loadVad(secondsToMs(turnDetection.min_endpointing_delay), turnDetection.mode));
  const parts = await buildSessionOptions(settings, { vad, access: options.access ?? vendorAccessFromEnv() });
  const session = new voice.AgentSession(parts.options);
  session.input.audio = options.audioInput;
  session.output.audio = options.audioOutput;
  return { session, model: parts.llm, turns: parts.turns };
}

interface CallTools {
  /** The assistant's enabled assigned tools (none when the caller gave its own). */
  assigned: CallTool[];
  /** The attached enabled playbooks, in order, with their tools. */
  playbooks: CallPlaybook[];
  /** How a list of tools runs in the call; the assistant's own are the caller's (tests) when given. */
  toolsFor: (tools: CallTool[]) => llm.ToolContextLike;
}

/** The tools the call offers: the caller's own (tests), else the assistant's enabled assigned tools; and its playbooks. */
async function toolsOf(
  call: CallRow,
  values: TemplateValues,
  options: RunCallOptions,
  runs: ToolRuns,
  onHttpResult: (id: string, result: HttpToolResult) => void,
  line?: CallLineTools,
  knowledge?: CallToolOptions['knowledge'],
): Promise<CallTools> {
  const secrets = options.secrets ?? new SecretBox(loadSecretsKey(undefined, options.dataDir ?? DEFAULT_DATA_DIR));
  const assistantId = call.assistantId;
  const assigned = options.tools || assistantId === null ? [] : await loadCallTools(options.prisma, secrets, call.organizationId, assistantId);
  const playbooks = assistantId === null ? [] : await loadCallPlaybooks(options.prisma, call.organizationId, assistantId, secrets);
  const toolsFor = (tools: CallTool[]): llm.ToolContextLike =>
    tools === assigned && options.tools ? options.tools : callToolContext(tools, { values, allowPrivateTargets: options.allowPrivateToolTargets ?? false, onHttpResult, runs, line, knowledge });
  return { assigned, playbooks, toolsFor };
}

/** Starts the session, then the consent prompt (when recording asks for consent) and the welcome. */
async function startSession(session: voice.AgentSession, agent: voice.Agent, settings: AssistantSettings, texts: CallTexts, options: RunCallOptions, logFields: Record<string, unknown>): Promise<void> {
  await session.start({ agent, record: false });
  options.onSession?.(session);
  log().info({ ...logFields, stt: settings.stt_settings.provider, tts: settings.tts_settings.provider, llm: settings.llm_provider }, 'call started');
  const rec = settings.recording_settings;
  if (rec.recording_enabled && rec.consent_required && rec.consent_prompt.trim()) {
    session.say(renderTemplate(rec.consent_prompt, texts.values, 'speech').text, { allowInterruptions: false });
  }
  if (texts.welcome.trim()) {
    const interruption = settings.interruption_settings;
    session.say(texts.welcome, { allowInterruptions: interruption.allow_interruptions && interruption.allow_welcome_interruption });
  }
}
