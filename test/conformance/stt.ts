import { APIStatusError, stt } from '@livekit/agents';
import { afterEach, expect, it } from 'vitest';
import type { FakeWsServer } from '../fakes/ws-server.js';
import { collect, feedUntil, pcmBytes, TEST_CONN_OPTIONS, type Collected } from '../helpers/speech-stream.js';
import { until } from '../helpers/until.js';

// What every streaming recogniser of ours does against its vendor's fake, whatever the vendor's wire format: audio
// out in 100 ms pieces, answers in as the framework's speech events, a refused key reported once and not retried, a
// dropped connection reopened with the same settings, a flush answered by a final transcript, and a refusal that lets
// the session's FallbackAdapter move on. The vendor's own test file says how its fake is scripted and what its
// answers look like, and keeps the tests of what only that vendor does.

const { FINAL_TRANSCRIPT, INTERIM_TRANSCRIPT, START_OF_SPEECH, END_OF_SPEECH, RECOGNITION_USAGE } = stt.SpeechEventType;

export interface SttTarget<Server extends FakeWsServer, Script> {
  /** The key the fake accepts. */
  apiKey: string;
  /** Starts the vendor's fake, which plays one script per connection (the last one again after that). */
  start(scripts: Script[]): Promise<Server>;
  /** The provider as a call builds it from the assistant's default settings, pointed at the fake, with this key. */
  create(server: Server, apiKey: string): stt.STT;
  /** A script that transcribes `text`: partly after some audio, all of it after more (or a flush). */
  transcribe(text: string): Script;
  /** The final transcript the vendor gives for the words spoken. */
  final(text: string): string;
  /** The text frame that ends the audio, and the one that asks the vendor to finalise what it heard. */
  endOfAudio: string;
  flushMessage: string;
  /** The settings a connection asked for (its query string, or its start request): a reconnect asks for the same. */
  settingsOf(server: Server, connection: number): unknown;
  /** A whole utterance: the speech events it makes, its interim transcripts and the alternative of its final one. */
  utterance: {
    text: string;
    events: stt.SpeechEventType[];
    interims: string[];
    alternative: Record<string, unknown>;
    check?(server: Server, out: Collected): void;
  };
  /** The status of the error a refused key becomes. */
  refusedKey: { status: number; check?(out: Collected): void };
  /** A connection dropped mid-utterance, then one that transcribes: the first interim, and every final, heard. */
  drop: { scripts: Script[]; interim: string; finals: string[] };
  flush?: { check?(out: Collected): void };
  /** Another vendor's provider, with a key its own fake accepts, for the session to fall back to. */
  backup: { start(): Promise<FakeWsServer>; create(server: FakeWsServer): stt.STT; final: string };
}

/** Registers the shared scenarios, in the calling describe, for the provider `target` builds. */
export function sttConformance<Server extends FakeWsServer, Script>(target: SttTarget<Server, Script>): void {
  const servers: FakeWsServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  const started = async <S extends FakeWsServer>(server: Promise<S>): Promise<S> => {
    servers.push(await server);
    return servers.at(-1) as S;
  };

  it('streams the frames as 100 ms binary pcm_s16le chunks and turns the answers into start, interim, final and end of speech events', async () => {
    const { text, events, interims, alternative, check } = target.utterance;
    const server = await started(target.start([target.transcribe(text)]));
    const owner = target.create(server, target.apiKey);
    const stream = owner.stream({ connOptions: TEST_CONN_OPTIONS });
    const out = collect(owner, stream);
    const frames = await feedUntil(stream, () => out.texts(FINAL_TRANSCRIPT).length > 0, out.done);
    stream.endInput();
    await out.done;

    const connection = server.connections[0]!;
    const sent = pcmBytes(frames);
    const received = Buffer.concat(connection.binary);
    // 100 ms pieces; the last one is padded with silence to a whole piece.
    expect(connection.binary.every((chunk) => chunk.length === 3200)).toBe(true);
    expect(received.subarray(0, sent.length).equals(sent)).toBe(true);
    expect(received.subarray(sent.length).every((byte) => byte === 0)).toBe(true);
    expect(connection.text.at(-1)).toBe(target.endOfAudio);

    const speech = out.events.filter((e) => e.type !== RECOGNITION_USAGE);
    expect(speech.map((e) => e.type)).toEqual(events);
    expect(out.texts(INTERIM_TRANSCRIPT)).toEqual(interims);
    expect(out.texts(FINAL_TRANSCRIPT)).toEqual([target.final(text)]);
    expect(speech.find((e) => e.type === FINAL_TRANSCRIPT)!.alternatives![0]).toMatchObject(alternative);
    const usageS = out.events.filter((e) => e.type === RECOGNITION_USAGE).reduce((sum, e) => sum + e.recognitionUsage!.audioDuration, 0);
    expect(usageS).toBeCloseTo(connection.binary.length * 0.1, 5);
    expect(out.errors).toEqual([]);
    check?.(server, out);
  });

  it('surfaces an invalid API key as a non-retryable APIStatusError, without trying again', async () => {
    const server = await started(target.start([target.transcribe('never heard')]));
    const owner = target.create(server, 'wrong-key');
    const stream = owner.stream({ connOptions: TEST_CONN_OPTIONS });
    const out = collect(owner, stream);
    await feedUntil(stream, () => false, out.done);
    await out.done;

    expect(out.errors).toHaveLength(1);
    const { error, recoverable } = out.errors[0]!;
    expect(error).toBeInstanceOf(APIStatusError);
    expect((error as APIStatusError).statusCode).toBe(target.refusedKey.status);
    expect((error as APIStatusError).retryable).toBe(false);
    expect(recoverable).toBe(false);
    expect(server.connections).toHaveLength(1); // a bad key is not retried
    expect(out.texts(FINAL_TRANSCRIPT)).toEqual([]);
    target.refusedKey.check?.(out);
  });

  it('reconnects with the same settings after the connection drops mid-utterance, and transcribes the audio that follows', async () => {
    const { scripts, interim, finals } = target.drop;
    const server = await started(target.start(scripts));
    const owner = target.create(server, target.apiKey);
    const stream = owner.stream({ connOptions: TEST_CONN_OPTIONS });
    const out = collect(owner, stream);
    await feedUntil(stream, () => out.texts(FINAL_TRANSCRIPT).includes(finals.at(-1)!), out.done, 8_000);
    stream.endInput();
    await out.done;

    expect(server.connections).toHaveLength(2);
    expect(target.settingsOf(server, 1)).toEqual(target.settingsOf(server, 0));
    expect(server.connections[1]!.binary.length).toBeGreaterThan(0);
    expect(out.texts(INTERIM_TRANSCRIPT)[0]).toBe(interim);
    expect(out.texts(FINAL_TRANSCRIPT)).toEqual(finals);
    // The dropped utterance never ended at the vendor: its speech ends with the connection, and the next starts afresh.
    const speech = out.events.filter((e) => e.type === START_OF_SPEECH || e.type === END_OF_SPEECH).map((e) => e.type);
    expect(speech).toEqual([START_OF_SPEECH, END_OF_SPEECH, START_OF_SPEECH, END_OF_SPEECH]);
    expect(out.errors).toEqual([]);
  }, 15_000);

  it('a flush asks the vendor to finalise what it heard, which comes out as a final transcript', async () => {
    const server = await started(target.start([target.transcribe('cancel my order')]));
    const owner = target.create(server, target.apiKey);
    const stream = owner.stream({ connOptions: TEST_CONN_OPTIONS });
    const out = collect(owner, stream);
    await feedUntil(stream, () => out.texts(INTERIM_TRANSCRIPT).length > 0, out.done);
    stream.flush();
    await until(() => out.texts(FINAL_TRANSCRIPT).length > 0, { intervalMs: 5 });
    stream.endInput();
    await out.done;

    expect(server.connections[0]!.text).toContain(target.flushMessage);
    expect(out.texts(FINAL_TRANSCRIPT)).toEqual([target.final('cancel my order')]);
    target.flush?.check?.(out);
  });

  it("lets the session's FallbackAdapter move on to the next STT when the vendor rejects the key", async () => {
    const server = await started(target.start([target.transcribe('never heard')]));
    const primary = target.create(server, 'wrong-key');
    const backup = await started(target.backup.start());
    const adapter = new stt.FallbackAdapter({ sttInstances: [primary, target.backup.create(backup)], retryIntervalMs: 50 });
    const stream = adapter.stream();
    const out = collect(adapter, stream);
    await feedUntil(stream, () => out.texts(FINAL_TRANSCRIPT).length > 0, out.done);
    stream.endInput();
    await out.done;
    expect(out.texts(FINAL_TRANSCRIPT)).toEqual([target.backup.final]);
    expect(server.connections.length).toBeGreaterThanOrEqual(1); // the vendor was tried first
    await adapter.close();
  });
}
