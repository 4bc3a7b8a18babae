import { log, type llm } from '@livekit/agents';
import type { AssistantSettings } from '../../modules/assistants/index.js';
import type { RealtimeEndpoint } from './realtime-models.js';

// Google's speech-to-speech model (Gemini Live), through the framework's Google plugin, which speaks the Live API's
// WebSocket with `@google/genai`. The plugin and the SDK are loaded the first time an assistant uses them, as the
// Google text model is (llm-providers.ts).
//
// The Live API's voice activity detection is the server's, and it says nothing when the caller starts or stops: the
// plugin takes the first message of a turn (the caller's transcription arriving) as the start, and the end of the
// model's whole reply as the stop, so the caller would be "speaking" all through the reply and again through a tool's
// follow-up. The session below keeps the caller's state to what the server shows of them: speaking from the first
// words transcribed (or the server's `interrupted`, when they talk over a reply) until the model starts answering.

type GoogleModule = typeof import('@livekit/agents-plugin-google');
type GoogleOptions = NonNullable<ConstructorParameters<GoogleModule['realtime']['RealtimeModel']>[0]>;
type ActivityHandling = NonNullable<NonNullable<GoogleOptions['realtimeInputConfig']>['activityHandling']>;

/** The Live API's server message, as much of it as the caller's state needs. */
interface ServerMessage {
  serverContent?: { inputTranscription?: unknown; modelTurn?: unknown; outputTranscription?: unknown };
  toolCall?: unknown;
}

/**
 * The plugin's session as it handles server messages. The class is not exported (only the model is), so its session
 * is adjusted per instance: these methods are the plugin's own steps, each called once per message.
 */
interface PluginSession {
  isNewGeneration(response: ServerMessage): boolean;
  startNewGeneration(): void;
  handleInputSpeechStarted(): void;
  handleInputSpeechStopped(): void;
  handleServerContent(content: NonNullable<ServerMessage['serverContent']>): void;
  handleToolCall(toolCall: unknown): void;
}

const STEPS = [
  'isNewGeneration',
  'startNewGeneration',
  'handleInputSpeechStarted',
  'handleInputSpeechStopped',
  'handleServerContent',
  'handleToolCall',
] as const;

/**
 * Keeps the caller's state to what the server shows of them (see above). The plugin is pinned to an exact version; a
 * version whose session lacks one of these steps is left as it is (the call works, with the plugin's own caller
 * state), and `test/runtime/call-realtime-google.test.ts` fails on the turn order it then stores.
 */
export function followCallerState(session: PluginSession): void {
  if (!STEPS.every((step) => typeof (session as unknown as Record<string, unknown>)[step] === 'function')) {
    log().warn({ vendor: 'google' }, "the Gemini Live plugin's session has changed: the caller's speaking state is the plugin's own");
    return;
  }
  const plugin = {
    isNewGeneration: session.isNewGeneration.bind(session),
    startNewGeneration: session.startNewGeneration.bind(session),
    started: session.handleInputSpeechStarted.bind(session),
    stopped: session.handleInputSpeechStopped.bind(session),
    handleServerContent: session.handleServerContent.bind(session),
    handleToolCall: session.handleToolCall.bind(session),
  };
  let callerSpeaking = false;
  let generationFromCaller = false;
  let startingGeneration = false;
  const modelAnswers = () => {
    if (!callerSpeaking) return;
    callerSpeaking = false;
    plugin.stopped();
  };
  session.isNewGeneration = (response) => {
    const yes = plugin.isNewGeneration(response);
    // A turn the server opens with the caller's words is the caller's; one it opens with the model's own output (the
    // reply after a tool's result) is not.
    if (yes) generationFromCaller = response.serverContent?.inputTranscription != null;
    return yes;
  };
  session.startNewGeneration = () => {
    startingGeneration = true;
    try {
      plugin.startNewGeneration();
    } finally {
      startingGeneration = false;
    }
  };
  session.handleInputSpeechStarted = () => {
    if (callerSpeaking || (startingGeneration && !generationFromCaller)) return;
    callerSpeaking = true;
    plugin.started();
  };
  // The plugin's own stop, at the end of each reply, is replaced by the model's first output.
  session.handleInputSpeechStopped = () => {};
  session.handleServerContent = (content) => {
    if (content.modelTurn || content.outputTranscription) modelAnswers();
    plugin.handleServerContent(content);
  };
  session.handleToolCall = (toolCall) => {
    modelAnswers();
    plugin.handleToolCall(toolCall);
  };
}

/** The SDK adds the Live API's path to the base; it takes an http(s) base and turns it into ws(s) itself. */
export function geminiBaseUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  if (url.protocol === 'ws:') url.protocol = 'http:';
  if (url.protocol === 'wss:') url.protocol = 'https:';
  return url.href.replace(/\/+$/, '');
}

export async function createGeminiLiveModel(e: RealtimeEndpoint, settings: AssistantSettings): Promise<llm.RealtimeModel> {
  const google = await import('@livekit/agents-plugin-google');

  class GeminiLiveModel extends google.realtime.RealtimeModel {
    override session(): ReturnType<InstanceType<GoogleModule['realtime']['RealtimeModel']>['session']> {
      const session = super.session();
      followCallerState(session as unknown as PluginSession);
      return session;
    }
  }

  const interrupts = settings.interruption_settings.allow_interruptions;
  return new GeminiLiveModel({
    model: e.model,
    voice: e.voice,
    apiKey: e.apiKey,
    ...(e.baseUrl ? { httpOptions: { baseUrl: geminiBaseUrl(e.baseUrl) } } : {}),
    // Both sides transcribed by the server: the caller's for the transcript, the model's for its turns' text.
    inputAudioTranscription: {},
    outputAudioTranscription: {},
    // The native-audio models pick the language from what they hear (they refuse a languageCode), so none is set.
    realtimeInputConfig: {
      automaticActivityDetection: { silenceDurationMs: e.silenceMs },
      activityHandling: (interrupts ? 'START_OF_ACTIVITY_INTERRUPTS' : 'NO_INTERRUPTION') as ActivityHandling,
    },
    // One reconnect, as the other vendors get (session-config.ts); a dead vendor ends the call rather than hang it.
    connOptions: { maxRetry: 1, retryIntervalMs: 500, timeoutMs: 10_000 },
  });
}
