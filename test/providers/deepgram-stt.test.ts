import { initializeLogger, stt } from '@livekit/agents';
import { afterEach, describe, expect, it } from 'vitest';
import { sttFactories, vendorAccessFromEnv } from '../../agent/providers/speech-providers.js';
import { AssistantSettings } from '../../modules/assistants/settings.js';
import { sttConformance } from '../conformance/stt.js';
import { startAssemblyAIServer } from '../fakes/vendors/assemblyai.js';
import { startDeepgramServer, type DeepgramScript } from '../fakes/vendors/deepgram.js';
import type { FakeWsServer } from '../fakes/ws-server.js';
import { collect, feedUntil, TEST_CONN_OPTIONS } from '../helpers/speech-stream.js';

initializeLogger({ pretty: false, level: 'silent' });
const { FINAL_TRANSCRIPT, INTERIM_TRANSCRIPT, START_OF_SPEECH, END_OF_SPEECH } = stt.SpeechEventType;
const API_KEY = 'dg-key';

function deepgram(server: FakeWsServer, settings: Record<string, unknown> = {}, apiKey = API_KEY) {
  const access = vendorAccessFromEnv({ DEEPGRAM_API_KEY: apiKey, DEEPGRAM_BASE_URL: server.url });
  return sttFactories.deepgram!(AssistantSettings.shape.stt_settings.parse({ provider: 'deepgram', ...settings }), access);
}

describe('Deepgram STT', () => {
  sttConformance<FakeWsServer, DeepgramScript>({
    apiKey: API_KEY,
    start: (scripts) => startDeepgramServer({ apiKey: API_KEY, scripts }),
    create: (server, apiKey) => deepgram(server, {}, apiKey),
    transcribe: (text) => ({ kind: 'transcribe', text }),
    final: (text) => text,
    endOfAudio: JSON.stringify({ type: 'CloseStream' }),
    flushMessage: JSON.stringify({ type: 'Finalize' }),
    settingsOf: (server, i) => server.connections[i]!.url.search,
    utterance: {
      text: 'hello from the caller',
      // The end of speech is Deepgram's `speech_final`.
      events: [START_OF_SPEECH, INTERIM_TRANSCRIPT, FINAL_TRANSCRIPT, END_OF_SPEECH],
      interims: ['hello from the'],
      alternative: { confidence: 0.9, startTime: 0, endTime: 0.39 },
    },
    // Close code 1008, a policy failure that a retry would only repeat.
    refusedKey: { status: 400 },
    drop: {
      scripts: [
        { kind: 'drop', text: 'I would like to' },
        { kind: 'transcribe', text: 'order a large pizza' },
      ],
      interim: 'I would like to',
      finals: ['order a large pizza'],
    },
    backup: {
      start: () => startAssemblyAIServer({ apiKey: 'backup-key', scripts: [{ kind: 'transcribe', text: 'heard by the backup' }] }),
      create: (server) =>
        sttFactories.assemblyai!(
          AssistantSettings.shape.stt_settings.parse({ provider: 'assemblyai' }),
          vendorAccessFromEnv({ ASSEMBLYAI_API_KEY: 'backup-key', ASSEMBLYAI_BASE_URL: server.url }),
        ),
      final: 'Heard by the backup.',
    },
  });

  let server: FakeWsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('listens with the multilingual model, biased toward the languages hinted, and reports the language it heard', async () => {
    server = await startDeepgramServer({ apiKey: API_KEY, scripts: [{ kind: 'transcribe', text: 'quiero reservar una mesa', language: 'es' }] });
    const owner = deepgram(server, { model: 'nova-3', language: 'en', language_hints: ['en', 'es'] });
    const stream = owner.stream({ connOptions: TEST_CONN_OPTIONS });
    const out = collect(owner, stream);
    await feedUntil(stream, () => out.texts(FINAL_TRANSCRIPT).length > 0, out.done);
    stream.endInput();
    stream.close();
    const q = server.connections[0]!.url.searchParams;
    expect(q.get('language')).toBe('multi');
    expect(q.getAll('language_hint')).toEqual(['en', 'es']);
    expect(q.has('detect_language')).toBe(false);
    const final = out.events.find((e) => e.type === FINAL_TRANSCRIPT)!;
    expect(final.alternatives?.[0]).toMatchObject({ text: 'quiero reservar una mesa', language: 'es' });
  });

  it('sends the settings as query parameters with the key, streams linear16, and turns Results into transcripts', async () => {
    server = await startDeepgramServer({ apiKey: API_KEY, scripts: [{ kind: 'transcribe', text: 'book a table' }] });
    const owner = deepgram(server, {
      model: 'nova-3',
      language: 'en-US',
      keyterms: ['Acme'],
      punctuate: true,
      smart_format: true,
      endpoint_latency_adjustment_level: 2,
    });
    const stream = owner.stream({ connOptions: TEST_CONN_OPTIONS });
    const out = collect(owner, stream);
    await feedUntil(stream, () => out.texts(FINAL_TRANSCRIPT).length > 0, out.done);
    stream.endInput();
    stream.close();

    const connection = server.connections[0]!;
    expect(connection.headers.authorization).toBe('Token dg-key');
    const q = connection.url.searchParams;
    expect(
      Object.fromEntries(
        ['model', 'language', 'encoding', 'sample_rate', 'punctuate', 'smart_format', 'interim_results', 'endpointing', 'keyterm'].map((k) => [k, q.get(k)]),
      ),
    ).toEqual({
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
});
