import { startWsServer, type FakeWsServer } from '../ws-server.js';
import { EnergyVad, textTokens, toneBase64 } from './energy-vad.js';

// OpenAI's Realtime API (GA, `wss://api.openai.com/v1/realtime?model=...`) as its WebSocket speaks it: JSON events
// both ways, PCM16 mono at 24 kHz in base64. The client configures the session (`session.update`, answered
// `session.updated`), streams the caller's audio (`input_audio_buffer.append`), and the server's own VAD decides the
// turns: `input_audio_buffer.speech_started` / `speech_stopped`, the audio committed as a user item
// (`input_audio_buffer.committed`, `conversation.item.added`) with its transcription
// (`conversation.item.input_audio_transcription.completed`), and with `create_response` a response at once. A response
// streams `response.created`, `response.output_item.added`, `response.content_part.added`, audio
// (`response.output_audio.delta`) and its transcript (`response.output_audio_transcript.delta`), the `.done` events,
// and `response.done` with its `usage`; or a function call (`response.function_call_arguments.delta/done`), whose
// output the client adds as a `function_call_output` item before asking for the next response (`response.create`).
// Speech over a response in progress cancels it (`interrupt_response`), and the client truncates the item to what was
// played (`conversation.item.truncate`, answered `conversation.item.truncated`). Errors are `error` events.
//
// The fake hears no words: its VAD is the audio's energy (energy-vad.ts, on the audio's own time), and what the caller said in each turn is scripted (`heard`). Reply audio is a tone as long as its words would take.
// Tokens follow OpenAI's published rates for audio (a token per 100 ms heard, per 50 ms spoken) and about four
// characters a token for text.

export const REALTIME_RATE = 24_000;
/** Reply audio per word, ms: about 150 words a minute, as the vendor's voices speak. */
const MS_PER_WORD = 400;

export type RealtimeReply =
  | { text: string }
  | { toolCalls: Array<{ name: string; arguments: string }> }
  /** The response fails, as the vendor reports a failed response. */
  | { fail: { type: string; code: string; message: string } };

export interface ResponseRequest {
  /** Why the response was made: the server's VAD ended a turn, or the client asked (`response.create`). */
  trigger: 'turn' | 'client';
  /** The instructions of a `response.create`, if any. */
  instructions: string | undefined;
  /** What the caller said in the last turn, as the fake transcribed it. */
  heard: string | undefined;
  /** Function outputs the client added since the last response. */
  toolOutputs: Array<{ call_id: string; output: string }>;
}

export interface RealtimeEvent {
  type: string;
  [key: string]: unknown;
}

export interface FakeOpenAIRealtime extends FakeWsServer {
  /** `http://127.0.0.1:<port>/v1`: what an assistant's `realtime_settings.base_url` points at. */
  baseUrl: string;
  /** Every client event of every connection, in order (audio appends left out: see `audioMs`). */
  clientEvents(): RealtimeEvent[];
  /** Every server event sent, in order. */
  serverEvents(): RealtimeEvent[];
  /** The session as the last `session.update` left it. */
  session(): Record<string, unknown>;
  /** Ms of caller audio received. */
  audioMs(): number;
  /** The responses made, with what asked for them. */
  requests: ResponseRequest[];
}

export interface FakeOpenAIRealtimeOptions {
  /** What the caller said in their n-th turn (from 0). */
  heard?: (turn: number) => string;
  reply?: (request: ResponseRequest, index: number) => RealtimeReply;
  /** A key the server expects as `Authorization: Bearer ...`; another is refused with `invalid_api_key`. */
  apiKey?: string;
  /** How much faster than real time the fake streams reply audio: the vendor generates ahead of playout. */
  speedup?: number;
}

interface Response {
  id: string;
  itemId: string;
  cancelled: boolean;
}

let ids = 0;
const id = (prefix: string) => `${prefix}_${(++ids).toString(36).padStart(6, '0')}`;

export async function startFakeOpenAIRealtime(options: FakeOpenAIRealtimeOptions = {}): Promise<FakeOpenAIRealtime> {
  const clientEvents: RealtimeEvent[] = [];
  const serverEvents: RealtimeEvent[] = [];
  const requests: ResponseRequest[] = [];
  const vads: EnergyVad[] = [];
  let session: Record<string, unknown> = {};
  let turn = 0;
  const reply = options.reply ?? (() => ({ text: 'Hello.' }));
  const speedup = options.speedup ?? 4;

  const server = await startWsServer('/v1/realtime', (socket, connection) => {
    const send = (event: RealtimeEvent) => {
      const full = { event_id: id('event'), ...event };
      serverEvents.push(full);
      if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(full));
    };
    if (options.apiKey !== undefined && connection.headers.authorization !== `Bearer ${options.apiKey}`) {
      send({ type: 'error', error: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided.', param: null } });
      socket.close(1008, 'invalid_api_key');
      return;
    }
    const model = connection.url.searchParams.get('model') ?? 'gpt-realtime';
    session = { type: 'realtime', id: id('sess'), object: 'realtime.session', model, output_modalities: ['audio'], instructions: '', tools: [] };
    send({ type: 'session.created', session });

    const items: string[] = [];
    let lastHeard: string | undefined;
    let toolOutputs: ResponseRequest['toolOutputs'] = [];
    let current: Response | undefined;
    let pendingInputTokens = 0;
    let userItem: string | undefined;

    const turnDetection = () => (session.audio as { input?: { turn_detection?: Record<string, unknown> | null } } | undefined)?.input?.turn_detection ?? null;
    const transcribes = () => Boolean((session.audio as { input?: { transcription?: unknown } } | undefined)?.input?.transcription);

    const addItem = (item: Record<string, unknown>) => {
      const previous = items.at(-1) ?? null;
      items.push(item.id as string);
      send({ type: 'conversation.item.added', previous_item_id: previous, item });
    };

    const cancel = (reason: 'turn_detected' | 'client_cancelled') => {
      const response = current;
      if (!response) return false;
      response.cancelled = true;
      current = undefined;
      send({
        type: 'response.done',
        response: {
          id: response.id,
          object: 'realtime.response',
          status: 'cancelled',
          status_details: { type: 'cancelled', reason },
          output: [],
          usage: usage(0, 0, 0),
        },
      });
      return true;
    };

    const usage = (audioIn: number, textOut: number, audioOut: number) => {
      const textIn = textTokens(String(session.instructions ?? '')) + pendingInputTokens;
      pendingInputTokens = 0;
      return {
        total_tokens: textIn + audioIn + textOut + audioOut,
        input_tokens: textIn + audioIn,
        output_tokens: textOut + audioOut,
        input_token_details: { text_tokens: textIn, audio_tokens: audioIn, cached_tokens: 0, cached_tokens_details: { text_tokens: 0, audio_tokens: 0 } },
        output_token_details: { text_tokens: textOut, audio_tokens: audioOut },
      };
    };

    const respond = async (trigger: ResponseRequest['trigger'], create: Record<string, unknown> | undefined, audioInTokens: number) => {
      if (current) cancel('client_cancelled');
      const request: ResponseRequest = {
        trigger,
        instructions: typeof create?.instructions === 'string' ? create.instructions : undefined,
        heard: lastHeard,
        toolOutputs,
      };
      toolOutputs = [];
      requests.push(request);
      const answer = reply(request, requests.length - 1);
      const response: Response = { id: id('resp'), itemId: id('item'), cancelled: false };
      current = response;
      const metadata = (create?.metadata as Record<string, unknown> | undefined) ?? null;
      send({ type: 'response.created', response: { id: response.id, object: 'realtime.response', status: 'in_progress', output: [], metadata, usage: null } });
      const base = { response_id: response.id, item_id: response.itemId, output_index: 0 };
      if ('fail' in answer) {
        current = undefined;
        send({
          type: 'response.done',
          response: {
            id: response.id,
            status: 'failed',
            status_details: { type: 'failed', error: answer.fail },
            output: [],
            usage: usage(audioInTokens, 0, 0),
          },
        });
        return;
      }
      if ('toolCalls' in answer) {
        const output = answer.toolCalls.map((call, i) => {
          const item = {
            id: i === 0 ? response.itemId : id('item'),
            type: 'function_call',
            status: 'in_progress',
            call_id: id('call'),
            name: call.name,
            arguments: '',
          };
          send({ type: 'response.output_item.added', response_id: response.id, output_index: i, item });
          addItem(item);
          const half = Math.ceil(call.arguments.length / 2);
          for (const delta of [call.arguments.slice(0, half), call.arguments.slice(half)]) {
            send({ type: 'response.function_call_arguments.delta', response_id: response.id, item_id: item.id, output_index: i, call_id: item.call_id, delta });
          }
          send({
            type: 'response.function_call_arguments.done',
            response_id: response.id,
            item_id: item.id,
            output_index: i,
            call_id: item.call_id,
            name: call.name,
            arguments: call.arguments,
          });
          const done = { ...item, status: 'completed', arguments: call.arguments };
          send({ type: 'response.output_item.done', response_id: response.id, output_index: i, item: done });
          return done;
        });
        current = undefined;
        const textOut = answer.toolCalls.reduce((n, c) => n + textTokens(c.name + c.arguments), 0);
        send({
          type: 'response.done',
          response: { id: response.id, object: 'realtime.response', status: 'completed', output, usage: usage(audioInTokens, textOut, 0) },
        });
        return;
      }
      const item = { id: response.itemId, type: 'message', role: 'assistant', status: 'in_progress', content: [] };
      send({ type: 'response.output_item.added', response_id: response.id, output_index: 0, item });
      addItem(item);
      send({ type: 'response.content_part.added', ...base, content_index: 0, part: { type: 'audio', transcript: '' } });
      const words = answer.text.split(/\s+/).filter(Boolean);
      let offset = 0;
      for (const [i, word] of words.entries()) {
        // Generated ahead of playout, but not all at once: a response in progress can still be cancelled.
        await new Promise((resolve) => setTimeout(resolve, MS_PER_WORD / speedup));
        if (response.cancelled || socket.readyState !== socket.OPEN) return;
        send({ type: 'response.output_audio_transcript.delta', ...base, content_index: 0, delta: i === 0 ? word : ` ${word}` });
        send({ type: 'response.output_audio.delta', ...base, content_index: 0, delta: toneBase64(MS_PER_WORD, offset, REALTIME_RATE) });
        offset += (REALTIME_RATE * MS_PER_WORD) / 1000;
      }
      current = undefined;
      send({ type: 'response.output_audio.done', ...base, content_index: 0 });
      send({ type: 'response.output_audio_transcript.done', ...base, content_index: 0, transcript: answer.text });
      send({ type: 'response.content_part.done', ...base, content_index: 0, part: { type: 'audio', transcript: answer.text } });
      const done = { ...item, status: 'completed', content: [{ type: 'output_audio', transcript: answer.text }] };
      send({ type: 'response.output_item.done', response_id: response.id, output_index: 0, item: done });
      const audioOut = Math.ceil((words.length * MS_PER_WORD) / 50);
      send({
        type: 'response.done',
        response: {
          id: response.id,
          object: 'realtime.response',
          status: 'completed',
          output: [done],
          usage: usage(audioInTokens, textTokens(answer.text), audioOut),
        },
      });
    };

    const endOfSpeech = (speechStartMs: number, endMs: number) => {
      const itemId = userItem!;
      send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: Math.round(endMs), item_id: itemId });
      send({ type: 'input_audio_buffer.committed', previous_item_id: items.at(-1) ?? null, item_id: itemId });
      addItem({ id: itemId, type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_audio', transcript: null }] });
      lastHeard = options.heard?.(turn) ?? '';
      turn++;
      if (transcribes()) send({ type: 'conversation.item.input_audio_transcription.completed', item_id: itemId, content_index: 0, transcript: lastHeard });
      const heardTokens = Math.ceil((endMs - speechStartMs) / 100);
      if (turnDetection()?.create_response !== false) void respond('turn', undefined, heardTokens);
      else pendingInputTokens += heardTokens;
    };

    // The server VAD, on the audio's own clock; off while the session has no turn_detection.
    const vad = new EnergyVad(() => (turnDetection() ? Number(turnDetection()!.silence_duration_ms ?? 500) : null), {
      onStart: (startMs) => {
        userItem = id('item');
        send({ type: 'input_audio_buffer.speech_started', audio_start_ms: Math.round(startMs), item_id: userItem });
        if (turnDetection()!.interrupt_response !== false) cancel('turn_detected');
      },
      onStop: endOfSpeech,
    });
    vads.push(vad);

    socket.on('message', (data) => {
      let event: RealtimeEvent;
      try {
        event = JSON.parse(String(data)) as RealtimeEvent;
      } catch {
        return send({ type: 'error', error: { type: 'invalid_request_error', code: 'invalid_json', message: 'The event is not JSON.', param: null } });
      }
      if (event.type === 'input_audio_buffer.append') return vad.hear(Buffer.from(String(event.audio), 'base64'), REALTIME_RATE);
      clientEvents.push(event);
      switch (event.type) {
        case 'session.update': {
          const update = event.session as Record<string, unknown>;
          const audio = update.audio as Record<string, Record<string, unknown>> | undefined;
          const before = session.audio as Record<string, Record<string, unknown>> | undefined;
          session = {
            ...session,
            ...update,
            ...(audio ? { audio: { input: { ...before?.input, ...audio.input }, output: { ...before?.output, ...audio.output } } } : {}),
          };
          return send({ type: 'session.updated', session });
        }
        case 'conversation.item.create': {
          const item = { ...(event.item as Record<string, unknown>) };
          item.id ??= id('item');
          if (item.type === 'function_call_output') toolOutputs.push({ call_id: String(item.call_id), output: String(item.output) });
          else pendingInputTokens += textTokens(JSON.stringify(item.content ?? ''));
          return addItem(item);
        }
        case 'conversation.item.delete': {
          const at = items.indexOf(String(event.item_id));
          if (at < 0) {
            return send({
              type: 'error',
              error: { type: 'invalid_request_error', code: 'item_not_found', message: `Item ${String(event.item_id)} not found`, event_id: event.event_id },
            });
          }
          items.splice(at, 1);
          return send({ type: 'conversation.item.deleted', item_id: event.item_id });
        }
        case 'conversation.item.truncate':
          return send({ type: 'conversation.item.truncated', item_id: event.item_id, content_index: event.content_index, audio_end_ms: event.audio_end_ms });
        case 'response.create':
          return void respond('client', { ...(event.response as Record<string, unknown> | undefined) }, 0);
        case 'response.cancel':
          if (!cancel('client_cancelled')) {
            send({
              type: 'error',
              error: {
                type: 'invalid_request_error',
                code: 'response_cancel_not_active',
                message: 'Cancellation failed: no active response found',
                event_id: event.event_id,
              },
            });
          }
          return;
        case 'input_audio_buffer.commit':
          vad.stop();
          return;
        case 'input_audio_buffer.clear':
          vad.reset();
          return send({ type: 'input_audio_buffer.cleared' });
        default:
          return send({
            type: 'error',
            error: { type: 'invalid_request_error', code: 'unknown_event', message: `Unknown event type ${event.type}`, event_id: event.event_id },
          });
      }
    });
    socket.on('close', () => {
      if (current) current.cancelled = true;
    });
  });

  return {
    ...server,
    baseUrl: `${server.url.replace(/^ws:/, 'http:')}/v1`,
    clientEvents: () => clientEvents,
    serverEvents: () => serverEvents,
    session: () => session,
    audioMs: () => vads.reduce((ms, v) => ms + v.receivedMs, 0),
    requests,
  };
}

/** The client events of a type, for assertions. */
export function eventsOf(events: RealtimeEvent[], type: string): RealtimeEvent[] {
  return events.filter((e) => e.type === type);
}
