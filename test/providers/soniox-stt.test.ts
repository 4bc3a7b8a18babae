import { APIStatusError, initializeLogger, stt } from '@livekit/agents';
import { afterEach, describe, expect, it } from 'vitest';
import { STTSettings } from '../../modules/assistants/settings.js';
import { sttFactories, vendorAccessFromEnv } from '../../agent/providers/speech-providers.js';
import { SONIOX_DEFAULT_MODEL } from '../../agent/providers/soniox-stt.js';
import { startAssemblyAIServer } from '../fakes/vendors/assemblyai.js';
import { startSonioxServer, type FakeSoniox, type SonioxScript } from '../fakes/vendors/soniox.js';
import { collect, feedUntil, pcmBytes, TEST_CONN_OPTIONS, waitFor } from '../helpers/speech-stream.js';

initializeLogger({ pretty: false, level: 'silent' });

const { FINAL_TRANSCRIPT, INTERIM_TRANSCRIPT, START_OF_SPEECH, END_OF_SPEECH, RECOGNITION_USAGE } = stt.SpeechEventType;
const API_KEY = 'soniox-test-key';

let server: FakeSoniox | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function sonioxStt(scripts: SonioxScript[], settings: Record<string, unknown> = {}, apiKey = API_KEY): Promise<stt.STT> {
  server = await startSonioxServer({ apiKey: API_KEY, scripts });
  const access = vendorAccessFromEnv({ SONIOX_API_KEY: apiKey, SONIOX_BASE_URL: server.url });
  return sttFactories.soniox!(STTSettings.parse({ provider: 'soniox', ...settings }), access);
}

describe('Soniox STT', () => {
  it("sends the assistant's model, language hints, keyterms, endpoint delay and audio format in the start request", async () => {
    const owner = await sonioxStt([{ kind: 'transcribe', text: 'book a table' }], {
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
    const owner = await sonioxStt([{ kind: 'transcribe', text: 'hola' }], { language: 'es' });
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

  it('streams the frames as binary pcm_s16le and turns tokens into start, interim, final and end of speech events', async () => {
    const owner = await sonioxStt([{ kind: 'transcribe', text: 'hello from the caller' }]);
    const stream = owner.stream({ connOptions: TEST_CONN_OPTIONS });
    const out = collect(owner, stream);
    const frames = await feedUntil(stream, () => out.texts(FINAL_TRANSCRIPT).length > 0, out.done);
    stream.endInput();
    await out.done;

    const connection = server!.connections[0]!;
    const sent = pcmBytes(frames);
    const received = Buffer.concat(connection.binary);
    // 100 ms pieces; the last one is padded with silence to a whole piece.
    expect(connection.binary.every((chunk) => chunk.length === 3200)).toBe(true);
    expect(received.subarray(0, sent.length).equals(sent)).toBe(true);
    expect(received.subarray(sent.length).every((byte) => byte === 0)).toBe(true);
    // The end of audio is an empty frame, answered by `finished`.
    expect(connection.text.at(-1)).toBe('');

    const speech = out.events.filter((e) => e.type !== RECOGNITION_USAGE);
    expect(speech.map((e) => e.type)).toEqual([START_OF_SPEECH, INTERIM_TRANSCRIPT, FINAL_TRANSCRIPT, END_OF_SPEECH]);
    expect(out.texts(INTERIM_TRANSCRIPT)).toEqual(['hello from the caller']);
    expect(out.texts(FINAL_TRANSCRIPT)).toEqual(['hello from the caller']);
    const final = speech[2]!.alternatives![0];
    expect(final).toMatchObject({ language: 'en', confidence: 0.9, startTime: 0, endTime: 0.39 });
    const usageS = out.events.filter((e) => e.type === RECOGNITION_USAGE).reduce((sum, e) => sum + e.recognitionUsage!.audioDuration, 0);
    expect(usageS).toBeCloseTo(connection.binary.length * 0.1, 5);
    expect(out.errors).toEqual([]);
  });

  it('surfaces an invalid API key as a non-retryable APIStatusError with the 401 Soniox answered', async () => {
    const owner = await sonioxStt([{ kind: 'transcribe', text: 'never heard' }], {}, 'wrong-key');
    const stream = owner.stream({ connOptions: TEST_CONN_OPTIONS });
    const out = collect(owner, stream);
    await feedUntil(stream, () => false, out.done);
    await out.done;

    expect(out.errors).toHaveLength(1);
    const { error, recoverable } = out.errors[0]!;
    expect(error).toBeInstanceOf(APIStatusError);
    expect((error as APIStatusError).statusCode).toBe(401);
    expect((error as APIStatusError).retryable).toBe(false);
    expect(recoverable).toBe(false);
    expect(server!.connections).toHaveLength(1); // a bad key is not retried
    expect(out.texts(FINAL_TRANSCRIPT)).toEqual([]);
  });

  it('retries a Soniox 503 on a new connection and then transcribes', async () => {
    const owner = await sonioxStt([
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

  it('reconnects after the connection drops mid-utterance, keeps the settled words and transcribes the audio that follows', async () => {
    const owner = await sonioxStt([
      { kind: 'drop', settled: 'I would like', guess: 'to ord' },
      { kind: 'transcribe', text: 'a large pizza' },
    ]);
    const stream = owner.stream({ connOptions: TEST_CONN_OPTIONS });
    const out = collect(owner, stream);
    await feedUntil(stream, () => out.texts(FINAL_TRANSCRIPT).includes('a large pizza'), out.done);
    stream.endInput();
    await out.done;

    expect(server!.connections).toHaveLength(2);
    expect(server!.startRequests[1]).toEqual(server!.startRequests[0]);
    expect(server!.connections[1]!.binary.length).toBeGreaterThan(0);
    expect(out.texts(INTERIM_TRANSCRIPT)[0]).toBe('I would like to ord');
    // Final tokens are settled text: the drop loses only Soniox's guess at the rest.
    expect(out.texts(FINAL_TRANSCRIPT)).toEqual(['I would like', 'a large pizza']);
    const speech = out.events.filter((e) => e.type === START_OF_SPEECH || e.type === END_OF_SPEECH).map((e) => e.type);
    expect(speech).toEqual([START_OF_SPEECH, END_OF_SPEECH, START_OF_SPEECH, END_OF_SPEECH]);
    expect(out.errors).toEqual([]);
  });

  it('a flush asks Soniox to finalize, and the <fin> that answers closes the utterance with a final transcript', async () => {
    const owner = await sonioxStt([{ kind: 'transcribe', text: 'cancel my order' }]);
    const stream = owner.stream({ connOptions: TEST_CONN_OPTIONS });
    const out = collect(owner, stream);
    await feedUntil(stream, () => out.texts(INTERIM_TRANSCRIPT).length > 0, out.done);
    stream.flush();
    expect(await waitFor(() => out.texts(FINAL_TRANSCRIPT).length > 0)).toBe(true);
    stream.endInput();
    await out.done;

    expect(server!.connections[0]!.text).toContain(JSON.stringify({ type: 'finalize' }));
    expect(out.texts(FINAL_TRANSCRIPT)).toEqual(['cancel my order']);
    const speech = out.events.filter((e) => e.type !== RECOGNITION_USAGE).map((e) => e.type);
    expect(speech).toEqual([START_OF_SPEECH, INTERIM_TRANSCRIPT, FINAL_TRANSCRIPT, END_OF_SPEECH]);
  });

  it("lets the session's FallbackAdapter move on to the next STT when Soniox rejects the key", async () => {
    const primary = await sonioxStt([{ kind: 'transcribe', text: 'never heard' }], {}, 'wrong-key');
    const backup = await startAssemblyAIServer({ apiKey: 'backup-key', scripts: [{ kind: 'transcribe', text: 'heard by the backup' }] });
    try {
      const access = vendorAccessFromEnv({ ASSEMBLYAI_API_KEY: 'backup-key', ASSEMBLYAI_BASE_URL: backup.url });
      const secondary = sttFactories.assemblyai!(STTSettings.parse({ provider: 'assemblyai' }), access);
      const adapter = new stt.FallbackAdapter({ sttInstances: [primary, secondary], retryIntervalMs: 50 });
      const stream = adapter.stream();
      const out = collect(adapter, stream);
      await feedUntil(stream, () => out.texts(FINAL_TRANSCRIPT).length > 0, out.done);
      stream.endInput();
      await out.done;
      expect(out.texts(FINAL_TRANSCRIPT)).toEqual(['Heard by the backup.']);
      expect(server!.connections.length).toBeGreaterThanOrEqual(1); // Soniox was tried first
      await adapter.close();
    } finally {
      await backup.close();
    }
  });
});
