import { APIStatusError, initializeLogger, stt } from '@livekit/agents';
import { afterEach, describe, expect, it } from 'vitest';
import { STTSettings } from '../../modules/assistants/settings.js';
import { ENDPOINTING_MS_BY_LEVEL, sttFactories, vendorAccessFromEnv } from '../../agent/providers/speech-providers.js';
import { ASSEMBLYAI_ENGLISH_MODEL } from '../../agent/providers/assemblyai-stt.js';
import { startAssemblyAIServer, type AssemblyAIScript } from '../fakes/vendors/assemblyai.js';
import { startSonioxServer } from '../fakes/vendors/soniox.js';
import type { FakeWsServer } from '../fakes/ws-server.js';
import { collect, feedUntil, pcmBytes, TEST_CONN_OPTIONS, waitFor } from '../helpers/speech-stream.js';

initializeLogger({ pretty: false, level: 'silent' });

const { FINAL_TRANSCRIPT, INTERIM_TRANSCRIPT, START_OF_SPEECH, END_OF_SPEECH, RECOGNITION_USAGE } = stt.SpeechEventType;
const API_KEY = 'assemblyai-test-key';

let server: FakeWsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function assemblyStt(scripts: AssemblyAIScript[], settings: Record<string, unknown> = {}, apiKey = API_KEY): Promise<stt.STT> {
  server = await startAssemblyAIServer({ apiKey: API_KEY, scripts });
  const access = vendorAccessFromEnv({ ASSEMBLYAI_API_KEY: apiKey, ASSEMBLYAI_BASE_URL: server.url });
  return sttFactories.assemblyai!(STTSettings.parse({ provider: 'assemblyai', ...settings }), access);
}

describe('AssemblyAI STT', () => {
  it("puts the assistant's model, keyterms, endpointing and sample rate in the query and the key in the Authorization header", async () => {
    const owner = await assemblyStt([{ kind: 'transcribe', text: 'book a table' }], {
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
    const owner = await assemblyStt([{ kind: 'transcribe', text: 'yes please' }], { punctuate: false, smart_format: false });
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

  it('streams the frames as 100 ms binary pcm_s16le chunks and turns Turn messages into interim and formatted final transcripts', async () => {
    const owner = await assemblyStt([{ kind: 'transcribe', text: 'hello from the caller' }]);
    const stream = owner.stream({ connOptions: TEST_CONN_OPTIONS });
    const out = collect(owner, stream);
    const frames = await feedUntil(stream, () => out.texts(FINAL_TRANSCRIPT).length > 0, out.done);
    stream.endInput();
    await out.done;

    const connection = server!.connections[0]!;
    const sent = pcmBytes(frames);
    const received = Buffer.concat(connection.binary);
    expect(connection.binary.every((chunk) => chunk.length === 3200)).toBe(true);
    expect(received.subarray(0, sent.length).equals(sent)).toBe(true);
    expect(connection.text.at(-1)).toBe(JSON.stringify({ type: 'Terminate' }));

    const speech = out.events.filter((e) => e.type !== RECOGNITION_USAGE);
    expect(speech.map((e) => e.type)).toEqual([START_OF_SPEECH, INTERIM_TRANSCRIPT, INTERIM_TRANSCRIPT, FINAL_TRANSCRIPT, END_OF_SPEECH]);
    // The partial shows AssemblyAI's guesses too; the unformatted end of turn is shown, the formatted copy is final.
    expect(out.texts(INTERIM_TRANSCRIPT)).toEqual(['hello from the caller', 'hello from the caller']);
    expect(out.texts(FINAL_TRANSCRIPT)).toEqual(['Hello from the caller.']);
    const final = speech[3]!.alternatives![0];
    expect(final).toMatchObject({ language: 'en', confidence: 0.9, startTime: 0, endTime: 0.39 });
    expect(final.words?.map((w) => w.text)).toEqual(['hello', 'from', 'the', 'caller']);
    const usage = out.events.filter((e) => e.type === RECOGNITION_USAGE);
    expect(usage.map((e) => e.requestId)).toEqual(['session-0']);
    expect(usage.reduce((sum, e) => sum + e.recognitionUsage!.audioDuration, 0)).toBeCloseTo(connection.binary.length * 0.1, 5);
    expect(out.errors).toEqual([]);
  });

  it('surfaces an invalid API key (close code 1008) as a non-retryable APIStatusError 401', async () => {
    const owner = await assemblyStt([{ kind: 'transcribe', text: 'never heard' }], {}, 'wrong-key');
    const stream = owner.stream({ connOptions: TEST_CONN_OPTIONS });
    const out = collect(owner, stream);
    await feedUntil(stream, () => false, out.done);
    await out.done;

    expect(out.errors).toHaveLength(1);
    const { error, recoverable } = out.errors[0]!;
    expect(error).toBeInstanceOf(APIStatusError);
    expect((error as APIStatusError).statusCode).toBe(401);
    expect((error as APIStatusError).retryable).toBe(false);
    expect(error.message).toContain('Unauthorized Connection');
    expect(recoverable).toBe(false);
    expect(server!.connections).toHaveLength(1);
  });

  it('surfaces a concurrency limit (close code 3009) as a retryable 429 that ends the stream once retries run out', async () => {
    const owner = await assemblyStt([{ kind: 'error', code: 3009, reason: 'Unauthorized Connection: Too many concurrent sessions' }]);
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

  it('reconnects after the connection drops mid-turn and transcribes the audio that follows', async () => {
    const owner = await assemblyStt([
      { kind: 'drop', text: 'I would like to' },
      { kind: 'transcribe', text: 'order a large pizza' },
    ]);
    const stream = owner.stream({ connOptions: TEST_CONN_OPTIONS });
    const out = collect(owner, stream);
    await feedUntil(stream, () => out.texts(FINAL_TRANSCRIPT).length > 0, out.done);
    stream.endInput();
    await out.done;

    expect(server!.connections).toHaveLength(2);
    expect(server!.connections[1]!.url.search).toBe(server!.connections[0]!.url.search);
    expect(server!.connections[1]!.binary.length).toBeGreaterThan(0);
    expect(out.texts(INTERIM_TRANSCRIPT)[0]).toBe('I would like to');
    expect(out.texts(FINAL_TRANSCRIPT)).toEqual(['Order a large pizza.']);
    // The dropped turn never ended at the vendor: its speech ends with the connection, and the new turn starts afresh.
    const speech = out.events.filter((e) => e.type === START_OF_SPEECH || e.type === END_OF_SPEECH).map((e) => e.type);
    expect(speech).toEqual([START_OF_SPEECH, END_OF_SPEECH, START_OF_SPEECH, END_OF_SPEECH]);
    expect(out.errors).toEqual([]);
  });

  it('a flush sends ForceEndpoint, and the turn it ends comes out as a final transcript', async () => {
    const owner = await assemblyStt([{ kind: 'transcribe', text: 'cancel my order' }]);
    const stream = owner.stream({ connOptions: TEST_CONN_OPTIONS });
    const out = collect(owner, stream);
    await feedUntil(stream, () => out.texts(INTERIM_TRANSCRIPT).length > 0, out.done);
    stream.flush();
    expect(await waitFor(() => out.texts(FINAL_TRANSCRIPT).length > 0)).toBe(true);
    stream.endInput();
    await out.done;

    expect(server!.connections[0]!.text).toContain(JSON.stringify({ type: 'ForceEndpoint' }));
    expect(out.texts(FINAL_TRANSCRIPT)).toEqual(['Cancel my order.']);
  });

  it("lets the session's FallbackAdapter move on to the next STT when AssemblyAI rejects the key", async () => {
    const primary = await assemblyStt([{ kind: 'transcribe', text: 'never heard' }], {}, 'wrong-key');
    const backup = await startSonioxServer({ apiKey: 'backup-key', scripts: [{ kind: 'transcribe', text: 'heard by the backup' }] });
    try {
      const access = vendorAccessFromEnv({ SONIOX_API_KEY: 'backup-key', SONIOX_BASE_URL: backup.url });
      const secondary = sttFactories.soniox!(STTSettings.parse({ provider: 'soniox' }), access);
      const adapter = new stt.FallbackAdapter({ sttInstances: [primary, secondary], retryIntervalMs: 50 });
      const stream = adapter.stream();
      const out = collect(adapter, stream);
      await feedUntil(stream, () => out.texts(FINAL_TRANSCRIPT).length > 0, out.done);
      stream.endInput();
      await out.done;
      expect(out.texts(FINAL_TRANSCRIPT)).toEqual(['heard by the backup']);
      expect(server!.connections.length).toBeGreaterThanOrEqual(1); // AssemblyAI was tried first
      await adapter.close();
    } finally {
      await backup.close();
    }
  });
});
