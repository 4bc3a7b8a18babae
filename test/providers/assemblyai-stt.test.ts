import { APIStatusError, initializeLogger, stt } from '@livekit/agents';
import { afterEach, describe, expect, it } from 'vitest';
import { STTSettings } from '../../modules/assistants/settings.js';
import { ENDPOINTING_MS_BY_LEVEL, sttFactories, vendorAccessFromEnv } from '../../agent/providers/speech-providers.js';
import { ASSEMBLYAI_ENGLISH_MODEL } from '../../agent/providers/assemblyai-stt.js';
import { sttConformance } from '../conformance/stt.js';
import { startAssemblyAIServer, type AssemblyAIScript } from '../fakes/vendors/assemblyai.js';
import { startSonioxServer } from '../fakes/vendors/soniox.js';
import type { FakeWsServer } from '../fakes/ws-server.js';
import { collect, feedUntil, TEST_CONN_OPTIONS } from '../helpers/speech-stream.js';

initializeLogger({ pretty: false, level: 'silent' });

const { FINAL_TRANSCRIPT, INTERIM_TRANSCRIPT, START_OF_SPEECH, END_OF_SPEECH, RECOGNITION_USAGE } = stt.SpeechEventType;
const API_KEY = 'assemblyai-test-key';

function assemblyStt(server: FakeWsServer, settings: Record<string, unknown> = {}, apiKey = API_KEY): stt.STT {
  const access = vendorAccessFromEnv({ ASSEMBLYAI_API_KEY: apiKey, ASSEMBLYAI_BASE_URL: server.url });
  return sttFactories.assemblyai!(STTSettings.parse({ provider: 'assemblyai', ...settings }), access);
}

describe('AssemblyAI STT', () => {
  sttConformance<FakeWsServer, AssemblyAIScript>({
    apiKey: API_KEY,
    start: (scripts) => startAssemblyAIServer({ apiKey: API_KEY, scripts }),
    create: (server, apiKey) => assemblyStt(server, {}, apiKey),
    transcribe: (text) => ({ kind: 'transcribe', text }),
    // With `format_turns`, the formatted copy of an end of turn is the final transcript.
    final: (text) => `${text.charAt(0).toUpperCase()}${text.slice(1)}.`,
    endOfAudio: JSON.stringify({ type: 'Terminate' }),
    flushMessage: JSON.stringify({ type: 'ForceEndpoint' }),
    settingsOf: (server, i) => server.connections[i]!.url.search,
    utterance: {
      text: 'hello from the caller',
      events: [START_OF_SPEECH, INTERIM_TRANSCRIPT, INTERIM_TRANSCRIPT, FINAL_TRANSCRIPT, END_OF_SPEECH],
      // The partial shows AssemblyAI's guesses too; the unformatted end of turn is shown, the formatted copy is final.
      interims: ['hello from the caller', 'hello from the caller'],
      alternative: { language: 'en', confidence: 0.9, startTime: 0, endTime: 0.39 },
      check(_server, out) {
        const final = out.events.find((e) => e.type === FINAL_TRANSCRIPT)!.alternatives![0];
        expect(final.words?.map((w) => w.text)).toEqual(['hello', 'from', 'the', 'caller']);
        expect(out.events.filter((e) => e.type === RECOGNITION_USAGE).map((e) => e.requestId)).toEqual(['session-0']);
      },
    },
    // Close code 1008.
    refusedKey: { status: 401, check: (out) => expect(out.errors[0]!.error.message).toContain('Unauthorized Connection') },
    drop: {
      scripts: [
        { kind: 'drop', text: 'I would like to' },
        { kind: 'transcribe', text: 'order a large pizza' },
      ],
      interim: 'I would like to',
      finals: ['Order a large pizza.'],
    },
    backup: {
      start: () => startSonioxServer({ apiKey: 'backup-key', scripts: [{ kind: 'transcribe', text: 'heard by the backup' }] }),
      create: (server) =>
        sttFactories.soniox!(STTSettings.parse({ provider: 'soniox' }), vendorAccessFromEnv({ SONIOX_API_KEY: 'backup-key', SONIOX_BASE_URL: server.url })),
      final: 'heard by the backup',
    },
  });

  let server: FakeWsServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function started(scripts: AssemblyAIScript[], settings: Record<string, unknown> = {}): Promise<stt.STT> {
    server = await startAssemblyAIServer({ apiKey: API_KEY, scripts });
    return assemblyStt(server, settings);
  }

  it("puts the assistant's model, keyterms, endpointing and sample rate in the query and the key in the Authorization header", async () => {
    const owner = await started([{ kind: 'transcribe', text: 'book a table' }], {
      model: 'universal-streaming-multilingual',
      language_hints: ['en', 'es'],
      keyterms: ['Acme', 'Zyrtec'],
      endpoint_latency_adjustment_level: 2,
      endpoint_sensitivity: 1,
    });
    const stream = owner.stream({ connOptions: TEST_CONN_OPTIONS });
    const out = collect(owner, stream);
    await feedUntil(stream, () => out.texts(FINAL_TRANSCRIPT).length > 0, out.done);
    stream.endInput();
    await out.done;

    const connection = server!.connections[0]!;
    expect(connection.headers.authorization).toBe(API_KEY);
    expect(Object.fromEntries(connection.url.searchParams)).toEqual({
      sample_rate: '16000',
      encoding: 'pcm_s16le',
      speech_model: 'universal-streaming-multilingual',
      format_turns: 'true',
      keyterms_prompt: JSON.stringify(['Acme', 'Zyrtec']),
      language_detection: 'true',
      min_end_of_turn_silence_when_confident: String(ENDPOINTING_MS_BY_LEVEL[2]),
      end_of_turn_confidence_threshold: '0.1',
    });
  });

  it('asks for the English model and unformatted turns when the assistant keeps the default model and turns formatting off', async () => {
    const owner = await started([{ kind: 'transcribe', text: 'yes please' }], { punctuate: false, smart_format: false });
    expect(owner.model).toBe(ASSEMBLYAI_ENGLISH_MODEL);
    const stream = owner.stream({ connOptions: TEST_CONN_OPTIONS });
    const out = collect(owner, stream);
    await feedUntil(stream, () => out.texts(FINAL_TRANSCRIPT).length > 0, out.done);
    stream.endInput();
    await out.done;

    const query = server!.connections[0]!.url.searchParams;
    expect(query.get('speech_model')).toBe(ASSEMBLYAI_ENGLISH_MODEL);
    expect(query.get('format_turns')).toBe('false');
    expect(query.has('keyterms_prompt')).toBe(false);
    expect(out.texts(FINAL_TRANSCRIPT)).toEqual(['yes please']);
  });

  it('surfaces a concurrency limit (close code 3009) as a retryable 429 that ends the stream once retries run out', async () => {
    const owner = await started([{ kind: 'error', code: 3009, reason: 'Unauthorized Connection: Too many concurrent sessions' }]);
    const stream = owner.stream({ connOptions: { ...TEST_CONN_OPTIONS, maxRetry: 1 } });
    const out = collect(owner, stream);
    await feedUntil(stream, () => false, out.done);
    await out.done;

    expect(server!.connections).toHaveLength(2);
    expect(out.errors).toHaveLength(1);
    expect(out.errors[0]!.error).toBeInstanceOf(APIStatusError);
    expect((out.errors[0]!.error as APIStatusError).statusCode).toBe(429);
    expect(out.errors[0]!.recoverable).toBe(false);
  });
});
