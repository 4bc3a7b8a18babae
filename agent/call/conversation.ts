import { log, voice, type llm } from '@livekit/agents';
import type { PrismaClient } from '../../prisma/client.js';
import { settledWithin } from '../../lib/async.js';
import {
  AssistantSettings,
  DEFAULT_IDLE_MESSAGE,
  DEFAULT_SYSTEM_PROMPT,
  renderPrompt,
  renderTemplate,
  type TemplateValues,
} from '../../modules/assistants/index.js';
import { appendCallTurn, CallNotRunnableError, type CallRow, loadContactFields, type PrivacyMode, turnAsKept } from '../../modules/calls/index.js';
import { vendorAccessFromEnv, type VendorAccess } from '../providers/speech-providers.js';
import { loadVad } from '../turn/vad.js';
import { playApology } from './apology.js';
import { type CallEnding, type Ending, FINAL_PLAYOUT_TIMEOUT_MS, type startSteps, watchForEnd } from './ending.js';
import { idlePromptsOf, startIdlePrompts } from './idle-prompts.js';
import { startRecording, type CallRecording } from './recording.js';
import { prepareWelcome } from '../providers/local/local-tts.js';
import type { TurnTaking } from '../turn/turn-taking.js';
import { buildAssistantAgent } from './assistant-agent.js';
import type { CollectedValues } from './collected-values.js';
import { buildSessionOptions, llmEndpoints, secondsToMs, type SessionParts } from './session-config.js';
import { trackRealtimeTurns } from './realtime-turns.js';
import { meterUsage, type UsageMeter, type CallVendors } from './usage.js';
import { captureTranscript, type TranscriptCapture } from './transcript.js';
import { callToolContext, type CallToolOptions } from './tools.js';
import type { CallLineTools } from './line-tools.js';
import { ToolRuns } from './tool-runs.js';
import { type CallTool, type HttpToolResult, KNOWLEDGE_TOOL_PARAMETERS, loadCallTools } from '../../modules/tools/index.js';
import { loadCallPlaybooks, type CallPlaybook } from '../../modules/playbooks/index.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { processKnowledge, turnPromptOf } from './knowledge.js';
import { watchForMachine } from './voicemail.js';
import type { RunCallOptions } from './run-call.js';
import { type LookedUp, startCallLookup } from './start-lookup.js';
import { type McpServers, openMcpServers } from './mcp-tools.js';
import { CallLanguages, spokenLanguages } from './languages.js';
import { LanguageVoices } from '../providers/language-voices.js';
import { speak } from './speak.js';

// The conversation of a call, between its start and its record (run-call.ts): the assistant's settings and texts, the
// session with its vendors, the recording, transcript and usage meter, the tools and playbooks, the watchers that end
// or prompt the call, and the agent that speaks the welcome. Each part is a step (ending.ts): the first that fails
// ends the call with its reason, and the parts made before it are still stopped and recorded.

/** What runCall gives the conversation. */
export interface CallScene {
  options: RunCallOptions & { secrets: SecretBox };
  call: CallRow;
  startedAt: Date;
  ending: CallEnding;
  lineTools: CallLineTools;
  step: ReturnType<typeof startSteps>;
  collected: CollectedValues;
  logFields: Record<string, unknown>;
  /** The call's privacy mode (modules/calls/privacy.ts): what of its words, analysis and audio is stored. */
  privacy: PrivacyMode;
}

/** The parts of a running conversation, as far as they were made. */
export interface Conversation {
  session?: voice.AgentSession;
  recording?: CallRecording;
  transcript?: TranscriptCapture;
  usage?: UsageMeter;
  /** What the post-call analysis runs on: the call's model and its rendered prompt. */
  analysis?: { model: llm.LLM; systemPrompt: string };
  missingVariables: string[];
  stops: (() => void)[];
}

/** Makes the conversation's parts in order and starts it; answers what was made, which is all of it unless a step failed. */
export async function startConversation(scene: CallScene, stored: unknown): Promise<Conversation> {
  const { options, call, step, ending, logFields } = scene;
  const { prisma } = options;
  const made: Conversation = { missingVariables: [], stops: [] };
  const settings = await step(() => settingsOf(stored));
  if (!settings) return made;
  // The team's lookup runs while the recording starts and the session loads; the texts wait for it (start-lookup.ts).
  const lookup = startCallLookup(scene, settings);
  // So do the assistant's tools, and the connections to its MCP servers (mcp-tools.ts).
  const assigned = assignedTools(scene);
  const mcpServers = assigned.then(
    (tools) => openMcpServers(tools, { allowPrivateTargets: options.allowPrivateToolTargets ?? false, signal: options.signal, logFields }),
    () => undefined,
  );
  made.stops.push(() => void mcpServers.then((servers) => servers?.close()));
  // Listening before the session's setup (VAD and vendors, up to a second), so that no caller audio is missed.
  made.recording = await step(() =>
    startRecording(settings.recording_settings, options, { callSid: call.callSid, startedAt: scene.startedAt.getTime(), dataDir: options.dataDir }),
  );
  const built = await step(() => buildSession(settings, options));
  if (!built) return made;
  const { session } = built;
  const languages = new CallLanguages(spokenLanguages(settings), session.tts);
  const realtimeTurns = built.realtime ? trackRealtimeTurns(session, built.realtime.endpoint.silenceMs) : undefined;
  if (realtimeTurns) made.stops.push(() => realtimeTurns.stop());
  const texts = await step(async () => {
    const lookedUp = await lookup;
    return renderTexts(prisma, call, settings, lookedUp, languages.startIn(lookedUp?.language));
  });
  if (!texts) return made;
  made.missingVariables = texts.missing;
  Object.assign(made, { session, analysis: { model: built.model, systemPrompt: texts.prompt } });
  prepareWelcome(session.tts instanceof LanguageVoices ? session.tts.current : session.tts, texts.welcome);
  const toolResults = new Map<string, HttpToolResult>();
  const mcpDurations = new Map<string, number>();
  const interruption = settings.interruption_settings;
  const runs = new ToolRuns({ minInterruptionWords: interruption.min_interruption_words, interruptions: interruption.allow_interruptions, logFields });
  const knowledge = options.knowledge ?? processKnowledge(prisma, options.access ?? vendorAccessFromEnv());
  const prompt = turnPromptOf(settings, {
    prisma,
    knowledge,
    organizationId: call.organizationId,
    assistantId: call.assistantId,
    model: built.model,
    retrievalTimeoutMs: options.retrievalTimeoutMs,
  });
  made.transcript = captureTranscript(session, {
    startedAt: scene.startedAt.getTime(),
    // Each turn is stored as the call's privacy mode keeps it, before it reaches the database: a redacted call's
    // words are masked here, turn by turn, so what was said in the clear is never written.
    store: (position, turn) => appendCallTurn(prisma, call.id, position, turnAsKept(scene.privacy, turn)),
    logFields,
    decisionForReply: () => built.turns.takeDecision(),
    retrievalForReply: () => prompt?.takeRetrieval(),
    toolMessageOf: (text) => runs.toolMessageOf(text),
    languageOf: (role) => languages.languageOf(role),
    ...(realtimeTurns && { userTurnOf: (item) => realtimeTurns.userTurn(item), replyLatencyOf: (item) => realtimeTurns.replyLatency(item) }),
    toolCallDetail: (id) => {
      const result = toolResults.get(id);
      const mcpMs = mcpDurations.get(id);
      return {
        ...(result && { http_status: result.status, duration_ms: result.duration_ms }),
        ...(mcpMs !== undefined && { duration_ms: mcpMs }),
        ...runs.detail(id),
      };
    },
  });
  const streaming = { stt: session.stt?.capabilities.streaming ?? true, tts: session.tts?.capabilities.streaming ?? true };
  const vendors = callVendors(settings, options.access ?? vendorAccessFromEnv());
  made.usage = meterUsage(session, built.model, built.realtime ? { ...vendors, realtime: built.realtime.endpoint } : vendors, streaming);
  made.stops.push(
    watchForEnd(session, ending, { signal: scene.lineTools.hangupSignal(options.signal), maxDurationMs: options.maxDurationMs, logFields }),
    // A speech-to-speech model takes its turns itself: the call's own turn-taking has no recogniser to follow.
    built.realtime ? () => {} : built.turns.attach(session),
    runs.attach(session),
  );
  if (prompt) made.stops.push(prompt.attach(session));
  const idle = idlePromptsOf(settings, texts.idleMessage);
  if (idle) made.stops.push(startIdlePrompts(session, ending, idle, () => runs.busy));
  const knowledgeToolSearch =
    call.assistantId === null
      ? undefined
      : (query: string, signal: AbortSignal) => knowledge.forAssistant(call.organizationId, call.assistantId!, query, { signal }).then((found) => found.result);
  const onHttpResult = (id: string, result: HttpToolResult) => toolResults.set(id, result);
  const mcp = { servers: await mcpServers, onResult: (id: string, result: { duration_ms: number }) => mcpDurations.set(id, result.duration_ms) };
  const tools = await step(async () => toolsOf(call, await assigned, texts.values, options, runs, onHttpResult, scene.lineTools, knowledgeToolSearch, mcp));
  if (!tools) return made;
  // A speech-to-speech model answers the moment the vendor ends the turn, before any passage could be added to its
  // prompt: with RAG on, it searches the knowledge itself, with a tool, for the turns that need it.
  const searchTool = built.realtime && settings.rag_settings.enabled && !tools.assigned.some((t) => t.type === 'knowledge_search');
  if (searchTool) tools.assigned = [...tools.assigned, realtimeKnowledgeTool()];
  const agent = buildAssistantAgent({
    instructions: texts.prompt,
    tools: tools.assigned,
    playbooks: tools.playbooks,
    toolsFor: tools.toolsFor,
    turns: built.turns,
    prompt,
    languages,
    collected: scene.collected,
  });
  await step(() => startSession(session, agent, settings, texts, options, logFields));
  if (!ending.ended)
    made.stops.push(
      await watchForMachine(prisma, call, session, ending, texts.values, logFields, options.audioInput, options.machineDetector).catch(() => () => {}),
    );
  return made;
}

/** Stops what the conversation started, the apology spoken first when the ending asks for it; answers when it ended and what was said. */
export async function stopConversation(made: Conversation, outcome: Ending, scene: CallScene) {
  for (const stop of made.stops) stop();
  // The call ends either way; a voice that could not speak the apology is for the operator to hear of.
  if (outcome.apology)
    await playApology(scene.options.audioOutput, FINAL_PLAYOUT_TIMEOUT_MS).catch((err: unknown) =>
      log().warn({ ...scene.logFields, err }, 'apology not played'),
    );
  if (made.session) await settledWithin(made.session.close(), FINAL_PLAYOUT_TIMEOUT_MS);
  const endedAt = new Date();
  made.recording?.stop(endedAt.getTime());
  const said = (await made.transcript?.close(endedAt.getTime())) ?? { spoken: [], turns: [] };
  return { endedAt, said };
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

/** The assistant's texts with the call's variables and its contact's fields filled in, and what the lookup answered. */
async function renderTexts(
  prisma: PrismaClient,
  call: CallRow,
  settings: AssistantSettings,
  lookedUp: LookedUp | null,
  languageWelcome: string | null,
): Promise<CallTexts> {
  const values: TemplateValues = {
    variables: lookedUp?.variables ?? ((call.variables ?? {}) as Record<string, unknown>),
    contact: await loadContactFields(prisma, call.organizationId, call.contactId),
  };
  const prompt = renderPrompt(lookedUp?.systemPrompt ?? settings.llm_settings.system_prompt ?? DEFAULT_SYSTEM_PROMPT, values);
  // The lookup's, then the call's own, then the one of the language the call starts in, then the assistant's.
  const welcomeText = lookedUp?.welcomeMessage ?? call.welcomeMessage ?? languageWelcome ?? settings.llm_settings.welcome_message ?? '';
  const welcome = renderTemplate(welcomeText, values, 'speech');
  const idleMessage = renderTemplate(settings.idle_message ?? DEFAULT_IDLE_MESSAGE, values, 'speech');
  const missing = [...new Set([...prompt.missing, ...welcome.missing, ...idleMessage.missing])];
  return { prompt: prompt.text, welcome: welcome.text, idleMessage: idleMessage.text, missing, values };
}

/** The session the settings ask for, on the call's audio; its LLM also runs the post-call analysis. */
async function buildSession(
  settings: AssistantSettings,
  options: RunCallOptions,
): Promise<{ session: voice.AgentSession; model: llm.LLM; turns: TurnTaking; realtime?: SessionParts['realtime'] }> {
  const turnDetection = settings.stt_settings.turn_detection;
  // A speech-to-speech model's vendor detects speech itself: no local VAD is loaded for it.
  const vad = settings.realtime_settings.enabled
    ? undefined
    : (options.vad ?? (await loadVad(secondsToMs(turnDetection.min_endpointing_delay), turnDetection.mode)));
  const parts = await buildSessionOptions(settings, { vad, access: options.access ?? vendorAccessFromEnv() });
  const session = new voice.AgentSession(parts.options);
  session.input.audio = options.audioInput;
  session.output.audio = options.audioOutput;
  return { session, model: parts.llm, turns: parts.turns, ...(parts.realtime ? { realtime: parts.realtime } : {}) };
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
/** The assistant's enabled assigned tools (none when the caller gave its own), credentials opened. */
function assignedTools(scene: CallScene): Promise<CallTool[]> {
  const { options, call } = scene;
  if (options.tools || call.assistantId === null) return Promise.resolve([]);
  const loading = loadCallTools(options.prisma, options.secrets, call.organizationId, call.assistantId);
  // Awaited by the tools' step, which reports a failure; a call that ends before that step leaves it unawaited.
  loading.catch(() => {});
  return loading;
}

async function toolsOf(
  call: CallRow,
  assigned: CallTool[],
  values: TemplateValues,
  options: RunCallOptions & { secrets: SecretBox },
  runs: ToolRuns,
  onHttpResult: (id: string, result: HttpToolResult) => void,
  line?: CallLineTools,
  knowledge?: CallToolOptions['knowledge'],
  mcp?: { servers: McpServers | undefined; onResult: (id: string, result: { duration_ms: number }) => void },
): Promise<CallTools> {
  const { secrets } = options;
  const assistantId = call.assistantId;
  const playbooks = assistantId === null ? [] : await loadCallPlaybooks(options.prisma, call.organizationId, assistantId, secrets);
  const toolsFor = (tools: CallTool[]): llm.ToolContextLike =>
    tools === assigned && options.tools
      ? options.tools
      : callToolContext(tools, {
          values,
          allowPrivateTargets: options.allowPrivateToolTargets ?? false,
          onHttpResult,
          runs,
          line,
          knowledge,
          mcp: mcp?.servers,
          onMcpResult: mcp?.onResult,
        });
  return { assigned, playbooks, toolsFor };
}

/** The knowledge search a speech-to-speech call offers its model when RAG is on; it runs as any knowledge_search tool (tools.ts). */
function realtimeKnowledgeTool(): CallTool {
  return {
    name: 'search_knowledge',
    description: '',
    type: 'knowledge_search',
    parameters: KNOWLEDGE_TOOL_PARAMETERS,
    http: null,
    transfer: null,
    messages: { on_start: null, on_slow: null, slow_after_ms: 2_000, on_failure: null },
  };
}

/** Starts the session, then the consent prompt (when recording asks for consent) and the welcome. */
async function startSession(
  session: voice.AgentSession,
  agent: voice.Agent,
  settings: AssistantSettings,
  texts: CallTexts,
  options: RunCallOptions,
  logFields: Record<string, unknown>,
): Promise<void> {
  await session.start({ agent, record: false });
  options.onSession?.(session);
  const vendors = settings.realtime_settings.enabled
    ? { realtime: settings.realtime_settings.provider }
    : { stt: settings.stt_settings.provider, tts: settings.tts_settings.provider, llm: settings.llm_provider };
  log().info({ ...logFields, ...vendors }, 'call started');
  const rec = settings.recording_settings;
  if (rec.recording_enabled && rec.consent_required && rec.consent_prompt.trim()) {
    speak(session, renderTemplate(rec.consent_prompt, texts.values, 'speech').text, { allowInterruptions: false });
  }
  if (texts.welcome.trim()) {
    const interruption = settings.interruption_settings;
    speak(session, texts.welcome, { allowInterruptions: interruption.allow_interruptions && interruption.allow_welcome_interruption });
  }
}
