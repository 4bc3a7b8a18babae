import { initializeLogger, stt } from '@livekit/agents';
import { afterEach, describe, expect, it } from 'vitest';
import { sttFactories, vendorAccessFromEnv } from '../../agent/providers/speech-providers.js';
import { AssistantSettings } from '../../modules/assistants/settings.js';
import { collect, feedUntil, TEST_CONN_OPTIONS } from '../helpers/speech-stream.js';
import { startWsServer, type FakeWsServer } from '../fakes/ws-server.js';

// Deepgram's live transcription as it speaks on the wire: a WebSocket at /v1/listen with the options as query
// parameters and `Authorization: Token <key>`, binary linear16 audio in, JSON `Results` (interim, then `is_final`,
// `speech_final` at an endpoint) out, and `{"type": "CloseStream"}` to finish.

initializeLogger({ pretty: false, level: 'silent' });
const { FINAL_TRANSCRIPT, INTERIM_TRANSCRIPT, START_OF_SPEECH, END_OF_SPEECH } = stt.SpeechEventType;

let server: FakeWsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function results(text: string, isFinal: boolean, speechFinal: boolean) {
  return JSON.stringify({
    type: 'Results',
    channel_index: [0, 1],
    duration: 0.5,
    start: 0,
    is_final: isFinal,
    speech_final: speechFinal,
    channel: { alternatives: [{ transcript: text, confidence: 0.98, words: text.split(' ').map((w, i) => ({ word: w, start: i * 0.2, end: i * 0.2 + 0.15, confidence: 0.98 })) }] },
    metadata: { request_id: 'req-1', model_info: { name: 'nova-3' }, model_uuid: 'm' },
  });
}

function deepgram(settings: Record<string, unknown> = {}) {
  const access = vendorAccessFromEnv({ DEEPGRAM_API_KEY: 'dg-key', DEEPGRAM_BASE_URL: server!.url });
  return sttFactories.deepgram!(AssistantSettings.shape.stt_settings.parse({ provider: 'deepgram', ...settings }), access);
}

describe('Deepgram STT', () => {
  it('sends the settings as query parameters with the key, streams linear16, and turns Results into transcripts', async () => {
    server = await startWsServer('/v1/listen', (socket, connection) => {
      socket.on('message', (_data, isBinary) => {
        if (isBinary && connection.binary.length === 5) {
          socket.send(results('book a', false, false));
          socket.send(results('book a table', true, true));
        }
      });
    });
    const owner = deepgram({ model: 'nova-3', language: 'en-US', keyterms: ['Acme'], punctuate: true, smart_format: true, endpoint_latency_adjustment_level: 2 });
    const stream = owner.stream({ connOptions: TEST_CONN_OPTIONS });
    const out = collect(owner, stream);
    await feedUntil(stream, () => out.texts(FINAL_TRANSCRIPT).length > 0, out.done);
    stream.endInput();
    stream.close();

    const connection = server.connections[0]!;
    expect(connection.headers.authorization).toBe('Token dg-key');
    const q = connection.url.searchParams;
    expect(Object.fromEntries(['model', 'language', 'encoding', 'sample_rate', 'punctuate', 'smart_format', 'interim_results', 'endpointing', 'keyterm'].map((k) => [k, q.get(k)]))).toEqual({
      model: 'nova-3',
      language: 'en-US',
      encoding: 'linear16',
      sample_rate: '16000',
      punctuate: 'true',
      smart_format: 'true',
      interim_results: 'true',
      endpointing: '300',
      keyterm: 'Acme',
    });
    expect(connection.binary.length).toBeGreaterThan(0);
    expect(out.events.map((e) => e.type)).toEqual(expect.arrayContaining([START_OF_SPEECH, INTERIM_TRANSCRIPT, FINAL_TRANSCRIPT, END_OF_SPEECH]));
    expect(out.texts(INTERIM_TRANSCRIPT)).toContain('book a');
    expect(out.texts(FINAL_TRANSCRIPT)).toEqual(['book a table']);
  });

  it('reconnects when the connection drops mid-stream and goes on transcribing', async () => {
    server = await startWsServer('/v1/listen', (socket, connection, index) => {
      socket.on('message', (_data, isBinary) => {
        if (!isBinary || connection.binary.length !== 3) return;
        // The first connection dies without a close frame, as a network failure ends it.
        if (index === 0) socket.terminate();
        else socket.send(results('still here', true, true));
      });
    });
    const owner = deepgram();
    const stream = owner.stream({ connOptions: TEST_CONN_OPTIONS });
    const out = collect(owner, stream);
    await feedUntil(stream, () => out.texts(FINAL_TRANSCRIPT).length > 0, out.done, 8_000);
    stream.close();
    expect(server.connections).toHaveLength(2);
    expect(server.connections[1]!.url.search).toBe(server.connections[0]!.url.search);
    expect(out.texts(FINAL_TRANSCRIPT)).toEqual(['still here']);
  }, 15_000);

  it('surfaces a refused key as an API error that is not retried', async () => {
    server = await startWsServer('/v1/listen', (socket) => socket.close(1008, 'Invalid credentials'));
    const owner = deepgram();
    const stream = owner.stream({ connOptions: TEST_CONN_OPTIONS });
    const out = collect(owner, stream);
    await feedUntil(stream, () => out.errors.length > 0, out.done, 5_000);
    stream.close();
    expect(server.connections).toHaveLength(1);
    expect(out.errors.length).toBeGreaterThan(0);
  });
});
