import { initializeLogger, stt } from '@livekit/agents';
import { afterEach, describe, expect, it } from 'vitest';
import { STTSettings } from '../../modules/assistants/settings.js';
import { sttFactories, vendorAccessFromEnv } from '../../agent/providers/speech-providers.js';
import { SONIOX_DEFAULT_MODEL } from '../../agent/providers/soniox-stt.js';
import { sttConformance } from '../conformance/stt.js';
import { startAssemblyAIServer } from '../fakes/vendors/assemblyai.js';
import { startSonioxServer, type FakeSoniox, type SonioxScript } from '../fakes/vendors/soniox.js';
import { collect, feedUntil, TEST_CONN_OPTIONS } from '../helpers/speech-stream.js';

initializeLogger({ pretty: false, level: 'silent' });

const { FINAL_TRANSCRIPT, INTERIM_TRANSCRIPT, START_OF_SPEECH, END_OF_SPEECH, RECOGNITION_USAGE } = stt.SpeechEventType;
const API_KEY = 'soniox-test-key';

function sonioxStt(server: FakeSoniox, settings: Record<string, unknown> = {}, apiKey = API_KEY): stt.STT {
  const access = vendorAccessFromEnv({ SONIOX_API_KEY: apiKey, SONIOX_BASE_URL: server.url });
  return sttFactories.soniox!(STTSettings.parse({ provider: 'soniox', ...settings }), access);
}

describe('Soniox STT', () => {
  sttConformance<FakeSoniox, SonioxScript>({
    apiKey: API_KEY,
    start: (scripts) => startSonioxServer({ apiKey: API_KEY, scripts }),
    create: (server, apiKey) => sonioxStt(server, {}, apiKey),
    transcribe: (text) => ({ kind: 'transcribe', text }),
    final: (text) => text,
    // The end of audio is an empty frame, answered by `finished`.
    endOfAudio: '',
    flushMessage: JSON.stringify({ type: 'finalize' }),
    settingsOf: (server, i) => server.startRequests[i],
    utterance: {
      text: 'hello from the caller',
      events: [START_OF_SPEECH, INTERIM_TRANSCRIPT, FINAL_TRANSCRIPT, END_OF_SPEECH],
      interims: ['hello from the caller'],
      alternative: { language: 'en', confidence: 0.9, startTime: 0, endTime: 0.39 },
    },
    // The 401 Soniox answered.
    refusedKey: { status: 401 },
    drop: {
      scripts: [
        { kind: 'drop', settled: 'I would like', guess: 'to ord' },
        { kind: 'transcribe', text: 'a large pizza' },
      ],
      interim: 'I would like to ord',
      // Final tokens are settled text: the drop loses only Soniox's guess at the rest.
      finals: ['I would like', 'a large pizza'],
    },
    flush: {
      // The <fin> that answers the finalize closes the utterance.
      check: (out) =>
        expect(out.events.filter((e) => e.type !== RECOGNITION_USAGE).map((e) => e.type)).toEqual([
          START_OF_SPEECH,
          INTERIM_TRANSCRIPT,
          FINAL_TRANSCRIPT,
          END_OF_SPEECH,
        ]),
    },
    backup: {
      start: () => startAssemblyAIServer({ apiKey: 'backup-key', scripts: [{ kind: 'transcribe', text: 'heard by the backup' }] }),
      create: (server) =>
        sttFactories.assemblyai!(
          STTSettings.parse({ provider: 'assemblyai' }),
          vendorAccessFromEnv({ ASSEMBLYAI_API_KEY: 'backup-key', ASSEMBLYAI_BASE_URL: server.url }),
        ),
      final: 'Heard by the backup.',
    },
  });

  let server: FakeSoniox | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function started(scripts: SonioxScript[], settings: Record<string, unknown> = {}): Promise<stt.STT> {
    server = await startSonioxServer({ apiKey: API_KEY, scripts });
    return sonioxStt(server, settings);
  }

  it("sends the assistant's model, language hints, keyterms, endpoint delay and audio format in the start request", async () => {
    const owner = await started([{ kind: 'transcribe', text: 'book a table' }], {
      model: 'stt-rt-preview',
      language_hints: ['en', 'es'],
      keyterms: ['Acme', 'Zyrtec'],
      endpoint_latency_adjustment_level: 3,
    });
    const stream = owner.stream({ connOptions: TEST_CONN_OPTIONS });
    const out = collect(owner, stream);
    await feedUntil(stream, () => out.texts(FINAL_TRANSCRIPT).length > 0, out.done);
    stream.endInput();
    await out.done;

    expect(server!.connections[0]!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(server!.startRequests[0]).toEqual({
      api_key: API_KEY,
      model: 'stt-rt-preview',
      audio_format: 'pcm_s16le',
      sample_rate: 16000,
      num_channels: 1,
      language_hints: ['en', 'es'],
      enable_language_identification: true,
      enable_endpoint_detection: true,
      max_endpoint_delay_ms: 600,
      context: { terms: ['Acme', 'Zyrtec'] },
    });
  });

  it("uses Soniox's default model and the assistant's language as the hint when the settings keep the schema defaults", async () => {
    const owner = await started([{ kind: 'transcribe', text: 'hola' }], { language: 'es' });
    expect(owner.model).toBe(SONIOX_DEFAULT_MODEL);
    const stream = owner.stream({ connOptions: TEST_CONN_OPTIONS });
    const out = collect(owner, stream);
    await feedUntil(stream, () => out.texts(FINAL_TRANSCRIPT).length > 0, out.done);
    stream.endInput();
    await out.done;
    expect(server!.startRequests[0]).toMatchObject({ model: SONIOX_DEFAULT_MODEL, language_hints: ['es'], enable_language_identification: false });
    expect(server!.startRequests[0]).not.toHaveProperty('context');
    expect(server!.startRequests[0]).not.toHaveProperty('max_endpoint_delay_ms');
  });

  it('retries a Soniox 503 on a new connection and then transcribes', async () => {
    const owner = await started([
      { kind: 'error', code: 503, message: 'Service is temporarily unavailable.' },
      { kind: 'transcribe', text: 'second time lucky' },
    ]);
    const stream = owner.stream({ connOptions: TEST_CONN_OPTIONS });
    const out = collect(owner, stream);
    await feedUntil(stream, () => out.texts(FINAL_TRANSCRIPT).length > 0, out.done);
    stream.endInput();
    await out.done;
    expect(server!.connections).toHaveLength(2);
    expect(out.texts(FINAL_TRANSCRIPT)).toEqual(['second time lucky']);
    expect(out.errors).toEqual([]);
  });
});
