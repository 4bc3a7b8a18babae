import { startWsServer, type FakeWsServer } from '../ws-server.js';
import { EnergyVad, textTokens, toneBase64 } from './energy-vad.js';

// Google's Live API (Gemini Live) as `@google/genai` speaks it: one WebSocket at
// `/ws/google.ai.generativelanguage.{v1beta|v1alpha}.GenerativeService.BidiGenerateContent?key=<API key>`, JSON both
// ways. The client's first message is `{setup}` (model, generationConfig with the voice, systemInstruction, tools,
// realtimeInputConfig, input/outputAudioTranscription), answered `{setupComplete: {}}`. Then the client streams
// `realtimeInput` (`audio` or `mediaChunks`: base64 PCM16, `audio/pcm;rate=16000` unless the type says another rate,
// or `text`), adds `clientContent` turns (with `turnComplete: true`, asking for a reply), and answers tool calls with
// `toolResponse.functionResponses[{id, name, response}]`. The server's own VAD (automaticActivityDetection, ended by
// `silenceDurationMs` of quiet) takes the caller's turns; the server sends `serverContent` with the caller's words
// (`inputTranscription.text`), the model's audio (`modelTurn.parts[].inlineData`, PCM16 at 24 kHz) and words
// (`outputTranscription.text`), `generationComplete`, and `turnComplete` with the turn's `usageMetadata`; or a
// `toolCall.functionCalls[{id, name, args}]`, continued in the same turn once the client answers it. Speech over a
// reply stops it (`interrupted: true`), unless activityHandling is NO_INTERRUPTION. A refused key closes the socket
// 1007, as Google's front end does.
//
// Usage follows Google's published counts: 32 tokens a second of audio, about four characters a text token, and each
// turn is billed for the whole context (instructions, every turn's text and all audio heard so far), as the Live API
// re-reads it per turn.

export const GEMINI_INPUT_RATE = 16_000;
export const GEMINI_OUTPUT_RATE = 24_000;
const MS_PER_WORD = 400;
const AUDIO_TOKENS_PER_SECOND = 32;
const PATH = /^\/+ws\/google\.ai\.generativelanguage\.(v1beta|v1alpha)\.GenerativeService\.BidiGenerateContent$/;

export type GeminiReply = { text: string } | { toolCalls: Array<{ name: string; args: Record<string, unknown> }> };

export interface GeminiRequest {
  /** The server's VAD ended a turn, the client asked (`clientContent` with turnComplete), or a tool answered. */
  trigger: 'turn' | 'client' | 'tool';
  /** The text of the model-role parts of the asking `clientContent`: how the plugin passes a reply's instructions. */
  instructions: string | undefined;
  /** What the caller said in the last turn. */
  heard: string | undefined;
  toolResponses: Array<{ id: string; name: string; response: unknown }>;
}

export interface GeminiMessage {
  [key: string]: unknown;
}

export interface FakeGeminiLive extends FakeWsServer {
  /** `http://127.0.0.1:<port>`: what `realtime_settings.base_url` points at. */
  baseUrl: string;
  /** Every client message of every connection, in order (audio left out: see `audioMs`). */
  clientMessages(): GeminiMessage[];
  serverMessages(): GeminiMessage[];
  /** The `setup` of the last connection. */
  setup(): Record<string, any>;
  audioMs(): number;
  requests: GeminiRequest[];
}

export interface FakeGeminiLiveOptions {
  heard?: (turn: number) => string;
  reply?: (request: GeminiRequest, index: number) => GeminiReply;
  /** The key expected as `?key=`; another closes the socket. */
  apiKey?: string;
  /** How much faster than real time the reply audio streams. */
  speedup?: number;
}

const modalities = (text: number, audio: number) =>
  [
    { modality: 'TEXT', tokenCount: text },
    { modality: 'AUDIO', tokenCount: audio },
  ].filter((d) => d.tokenCount > 0);

export async function startFakeGeminiLive(options: FakeGeminiLiveOptions = {}): Promise<FakeGeminiLive> {
  const clientMessages: GeminiMessage[] = [];
  const serverMessages: GeminiMessage[] = [];
  const requests: GeminiRequest[] = [];
  const vads: EnergyVad[] = [];
  let setup: Record<string, any> = {};
  let turn = 0;
  let ids = 0;
  const reply = options.reply ?? (() => ({ text: 'Hello.' }));
  const speedup = options.speedup ?? 4;

  const server = await startWsServer(
    (pathname) => PATH.test(pathname),
    (socket, connection) => {
      const send = (message: GeminiMessage) => {
        serverMessages.push(message);
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
      };
      // Google's front end answers a client's close without a status (what the SDK sends) with 1000, normal closure;
      // the plugin takes any other code as the vendor failing. `ws` would echo the missing status (1005).
      const close = socket.close.bind(socket);
      socket.close = (code?: number, reason?: string | Buffer) => close(code ?? 1000, reason);
      if (options.apiKey !== undefined && connection.url.searchParams.get('key') !== options.apiKey) {
        socket.close(1007, 'API key not valid. Please pass a valid API key.');
        return;
      }
      let contextText = 0;
      let lastHeard: string | undefined;
      let pendingResponses: GeminiRequest['toolResponses'] = [];
      let pendingCalls = new Set<string>();
      let current: { cancelled: boolean } | undefined;
      const automatic = () => setup.realtimeInputConfig?.automaticActivityDetection ?? {};
      const transcribesInput = () => setup.inputAudioTranscription != null;
      const transcribesOutput = () => setup.outputAudioTranscription != null;

      const usageOf = (textOut: number, audioOut: number) => {
        const textIn = textTokens(JSON.stringify(setup.systemInstruction ?? '')) + contextText;
        const audioIn = Math.ceil((vad.receivedMs / 1000) * AUDIO_TOKENS_PER_SECOND);
        return {
          promptTokenCount: textIn + audioIn,
          responseTokenCount: textOut + audioOut,
          totalTokenCount: textIn + audioIn + textOut + audioOut,
          promptTokensDetails: modalities(textIn, audioIn),
          responseTokensDetails: modalities(textOut, audioOut),
        };
      };

      const respond = async (trigger: GeminiRequest['trigger'], instructions: string | undefined) => {
        if (current) current.cancelled = true;
        const request: GeminiRequest = { trigger, instructions, heard: lastHeard, toolResponses: pendingResponses };
        pendingResponses = [];
        requests.push(request);
        const answer = reply(request, requests.length - 1);
        const generation = { cancelled: false };
        current = generation;
        if ('toolCalls' in answer) {
          const functionCalls = answer.toolCalls.map((c) => ({ id: `function-call-${++ids}`, name: c.name, args: c.args }));
          pendingCalls = new Set(functionCalls.map((c) => c.id));
          contextText += textTokens(JSON.stringify(functionCalls));
          // The turn stays open: the model goes on once every call has its response.
          return send({ toolCall: { functionCalls } });
        }
        const words = answer.text.split(/\s+/).filter(Boolean);
        let offset = 0;
        for (const [i, word] of words.entries()) {
          await new Promise((resolve) => setTimeout(resolve, MS_PER_WORD / speedup));
          if (generation.cancelled || socket.readyState !== socket.OPEN) return;
          const data = toneBase64(MS_PER_WORD, offset, GEMINI_OUTPUT_RATE);
          send({ serverContent: { modelTurn: { parts: [{ inlineData: { mimeType: `audio/pcm;rate=${GEMINI_OUTPUT_RATE}`, data } }] } } });
          if (transcribesOutput()) send({ serverContent: { outputTranscription: { text: i === 0 ? word : ` ${word}` } } });
          offset += (GEMINI_OUTPUT_RATE * MS_PER_WORD) / 1000;
        }
        current = undefined;
        contextText += textTokens(answer.text);
        send({ serverContent: { generationComplete: true } });
        const audioOut = Math.ceil(((words.length * MS_PER_WORD) / 1000) * AUDIO_TOKENS_PER_SECOND);
        send({ serverContent: { turnComplete: true }, usageMetadata: usageOf(0, audioOut) });
      };

      const vad = new EnergyVad(() => (automatic().disabled ? null : Number(automatic().silenceDurationMs ?? 500)), {
        onStart: () => {
          lastHeard = options.heard?.(turn) ?? '';
          turn++;
          if (current && setup.realtimeInputConfig?.activityHandling !== 'NO_INTERRUPTION') {
            current.cancelled = true;
            current = undefined;
            send({ serverContent: { interrupted: true } });
            send({ serverContent: { turnComplete: true }, usageMetadata: usageOf(0, 0) });
          }
          // The first word is transcribed as it is spoken, the rest when the turn ends.
          const first = lastHeard.split(' ')[0]!;
          if (transcribesInput() && first) send({ serverContent: { inputTranscription: { text: first } } });
        },
        onStop: () => {
          const rest = lastHeard!.split(' ').slice(1).join(' ');
          if (transcribesInput() && rest) send({ serverContent: { inputTranscription: { text: ` ${rest}` } } });
          contextText += textTokens(lastHeard ?? '');
          void respond('turn', undefined);
        },
      });
      vads.push(vad);

      const hearChunk = (chunk: { data?: unknown; mimeType?: unknown }) => {
        const rate = Number(/rate=(\d+)/.exec(String(chunk.mimeType ?? ''))?.[1] ?? GEMINI_INPUT_RATE);
        vad.hear(Buffer.from(String(chunk.data ?? ''), 'base64'), rate);
      };

      socket.on('message', (data) => {
        let message: Record<string, any>;
        try {
          message = JSON.parse(String(data)) as Record<string, any>;
        } catch {
          return socket.close(1007, 'Invalid JSON payload received.');
        }
        const input = message.realtimeInput as Record<string, any> | undefined;
        if (input?.audio || input?.mediaChunks) {
          if (input.audio) hearChunk(input.audio);
          for (const chunk of input.mediaChunks ?? []) hearChunk(chunk);
          return;
        }
        clientMessages.push(message);
        if (message.setup) {
          setup = message.setup as Record<string, any>;
          return send({ setupComplete: {} });
        }
        if (!setup.model) return socket.close(1007, 'The first message must be setup.');
        if (input?.text) contextText += textTokens(String(input.text));
        if (message.clientContent) {
          const content = message.clientContent as { turns?: Array<{ role?: string; parts?: Array<{ text?: string }> }>; turnComplete?: boolean };
          const turns = content.turns ?? [];
          contextText += textTokens(JSON.stringify(turns));
          const instructions = turns
            .filter((t) => t.role === 'model')
            .flatMap((t) => t.parts ?? [])
            .map((p) => p.text ?? '')
            .join('\n');
          if (content.turnComplete) void respond('client', instructions || undefined);
          return;
        }
        if (message.toolResponse) {
          const responses = (message.toolResponse as { functionResponses?: GeminiRequest['toolResponses'] }).functionResponses ?? [];
          for (const r of responses) {
            if (!pendingCalls.delete(r.id)) return socket.close(1007, `Unknown function call id ${r.id}.`);
            pendingResponses.push(r);
            contextText += textTokens(JSON.stringify(r.response));
          }
          if (pendingCalls.size === 0) void respond('tool', undefined);
        }
      });
      socket.on('close', () => {
        if (current) current.cancelled = true;
      });
    },
  );

  return {
    ...server,
    baseUrl: server.url.replace(/^ws:/, 'http:'),
    clientMessages: () => clientMessages,
    serverMessages: () => serverMessages,
    setup: () => setup,
    audioMs: () => vads.reduce((ms, v) => ms + v.receivedMs, 0),
    requests,
  };
}
