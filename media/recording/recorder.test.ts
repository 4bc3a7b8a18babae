import { AudioFrame } from '@livekit/rtc-node';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { CallRecorder, RECORDING_RATE, type Track } from './recorder.js';
import { encodeMp3 } from '../mp3.js';
import { levelOf, readPeaks } from './peaks.js';
import { openSpool, SPOOL_FLUSH_INTERVAL_MS, spoolDirOf } from './spool.js';
import { LocalFileStorage, type RecordingStorage } from './storage.js';
import { decodeWav } from '../wav.js';
import { until } from '../../test/helpers/until.js';

const START = 1_700_000_000_000;
/** 20 ms at the recording rate. */
const FRAME = 320;
const TRACKS: Track[] = ['user', 'assistant', 'mixed'];

function frame(sample: (i: number) => number): AudioFrame {
  const data = new Int16Array(FRAME);
  for (let i = 0; i < FRAME; i++) data[i] = sample(i);
  return new AudioFrame(data, RECORDING_RATE, 1, FRAME);
}

function firstDifference(a: Int16Array, b: Int16Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

/**
 * One call's audio, fed to a recorder, and the tracks it must come out as: what the recorder rendered when it held
 * the call in memory (user frames end to end, assistant frames where they played, a
 * later frame over an earlier one, audio past the end cut, mixed the clipped sum).
 */
function feed(recorder: CallRecorder): Record<Track, Int16Array> {
  const stopAt = START + 3000;
  // The caller's frames follow one another from the start of the track; 154 frames end at sample 49280, past the
  // 3 s of the call.
  const userFrames = 154;
  const userSample = (f: number, i: number) => 30_000 - ((f * 37 + i) % 100);
  for (let f = 0; f < userFrames; f++) recorder.addUser(frame((i) => userSample(f, i)));
  const length = userFrames * FRAME;

  const assistant = new Int16Array(length);
  const play = (playedAtMs: number, expectedAt: number, sample: (i: number) => number) => {
    const audio = frame(sample);
    recorder.addAssistant(audio, START + playedAtMs);
    assistant.set(audio.data.subarray(0, Math.max(length - expectedAt, 0)), expectedAt);
  };
  // A reply from 500 ms: timer jitter of a few ms is laid end to end, not left as gaps or overlaps.
  for (let f = 0; f < 10; f++) play(500 + 20 * f + (f === 0 ? 0 : f % 2 ? 4 : -3), 8000 + f * FRAME, (i) => 10_000 + f * 10 + i);
  // Another from 2 s, then a frame that played 40 ms after that one started: it lands there, over the run.
  for (let f = 0; f < 5; f++) play(2000 + 20 * f, 32_000 + f * FRAME, (i) => -20_000 - i);
  play(2040, 32_640, (i) => 5_000 + i);
  // Past the end of the user track: cut where the recording ends.
  play(3070, 49_120, () => 1234);
  recorder.stop(stopAt);

  const user = new Int16Array(length);
  for (let f = 0; f < userFrames; f++) for (let i = 0; i < FRAME; i++) user[f * FRAME + i] = userSample(f, i);
  const mixed = new Int16Array(length);
  for (let i = 0; i < length; i++) mixed[i] = Math.max(-32768, Math.min(32767, user[i]! + assistant[i]!));
  return { user, assistant, mixed };
}

/** The level of each 100 ms of a track, from its samples: what its peaks must say. */
function levelsOf(samples: Int16Array): number[] {
  const bucket = RECORDING_RATE / 10;
  return Array.from({ length: Math.ceil(samples.length / bucket) }, (_, b) =>
    levelOf(Math.max(0, ...Array.from(samples.subarray(b * bucket, (b + 1) * bucket), Math.abs))),
  );
}

/** A data folder of the test's own: `discard` removes a spool, never the tracks saved beside it, so the folder goes when the test ends. */
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'recorder-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe('call recorder', () => {
  it('writes the audio to its spool on disk as the call runs, at least every second', async () => {
    const dataDir = await tempDir();
    const dir = spoolDirOf(dataDir, 'CAspool');
    const recorder = new CallRecorder(START, dir);
    for (let f = 0; f < 25; f++) recorder.addUser(frame(() => 100));
    // Not yet: frames are batched in memory between flushes.
    expect(existsSync(dir)).toBe(false);
    // The flush runs on its own timer (every SPOOL_FLUSH_INTERVAL_MS): the spool is read once it has written them, however
    // late a busy machine runs that timer, rather than at a time fixed in advance.
    const spool = await until(
      async () => {
        const opened = await openSpool(dir);
        if (opened && opened.samples.user === 25 * FRAME) return opened;
        await opened?.close();
        return undefined;
      },
      { timeoutMs: 30_000, intervalMs: SPOOL_FLUSH_INTERVAL_MS / 4, message: 'the spool was not flushed' },
    );
    expect(spool.samples).toEqual({ user: 25 * FRAME, assistant: 0 });
    expect(Array.from(await spool.read('user', 0, 3))).toEqual([100, 100, 100]);
    // Read past what was written: silence.
    expect(Array.from(await spool.read('assistant', 0, 2))).toEqual([0, 0]);
    await spool.close();
    await recorder.discard();
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(path.dirname(dir))).toBe(false);
  });

  it('renders the spooled tracks as the recording held in memory did: user end to end, assistant where it played, mixed their sum', async () => {
    const dataDir = await tempDir();
    const recorder = new CallRecorder(START, spoolDirOf(dataDir, 'CAwav'));
    const expected = feed(recorder);
    const stored = await recorder.save(new LocalFileStorage(dataDir), 'CAwav', TRACKS, 'wav');
    expect(stored.map((t) => t.track)).toEqual(TRACKS);
    for (const t of stored) {
      const length = expected[t.track].length;
      expect(t).toMatchObject({
        format: 'wav',
        storageKey: `recordings/CAwav/${t.track}.wav`,
        durationMs: Math.round((length * 1000) / RECORDING_RATE),
        sizeBytes: 44 + 2 * length,
      });
      const wav = decodeWav(await readFile(t.path!));
      expect(wav).toMatchObject({ sampleRate: RECORDING_RATE, channels: 1 });
      expect(firstDifference(wav.samples, expected[t.track])).toBe(-1);
    }
    // The spool stays until the call's record lists the tracks.
    expect(existsSync(spoolDirOf(dataDir, 'CAwav'))).toBe(true);
    await recorder.discard();
    expect(existsSync(spoolDirOf(dataDir, 'CAwav'))).toBe(false);
    expect(existsSync(path.join(dataDir, 'recordings/CAwav/mixed.wav'))).toBe(true);
  });

  it('encodes each mp3 track to the same bytes as encoding the whole track at once', async () => {
    const dataDir = await tempDir();
    const recorder = new CallRecorder(START, spoolDirOf(dataDir, 'CAmp3'));
    const expected = feed(recorder);
    const stored = await recorder.save(new LocalFileStorage(dataDir), 'CAmp3', TRACKS, 'mp3');
    for (const t of stored) {
      const whole = await encodeMp3(expected[t.track], RECORDING_RATE);
      const bytes = await readFile(t.path!);
      expect(t.sizeBytes).toBe(bytes.length);
      expect(bytes.equals(whole)).toBe(true);
    }
    await recorder.discard();
  });

  it("puts both tracks on the call's clock: a caller's frame and an assistant's frame heard at the same moment line up", async () => {
    const dataDir = await tempDir();
    const recorder = new CallRecorder(START, spoolDirOf(dataDir, 'CAclock'));
    // The caller's first frame arrived 170 ms into the call, so it was spoken from 150 ms; the next follow it, one of
    // them 15 ms late (jitter), all in place. The assistant's frame played from 150 ms.
    recorder.addUser(
      frame(() => 1_000),
      START + 170,
    );
    recorder.addUser(
      frame(() => 2_000),
      START + 205,
    );
    recorder.addUser(
      frame(() => 3_000),
      START + 211,
    );
    recorder.addAssistant(
      frame(() => 500),
      START + 150,
    );
    recorder.stop(START + 400);
    const stored = await recorder.save(new LocalFileStorage(dataDir), 'CAclock', ['user', 'assistant'], 'wav');
    const [user, assistant] = await Promise.all(stored.map(async (t) => decodeWav(await readFile(t.path!)).samples));
    const at150 = (150 * RECORDING_RATE) / 1000;
    expect(user!.findIndex((v) => v !== 0)).toBe(at150);
    expect(assistant!.findIndex((v) => v !== 0)).toBe(at150);
    expect(Array.from(user!.subarray(at150, at150 + 3 * FRAME).filter((_, i) => i % FRAME === 0))).toEqual([1_000, 2_000, 3_000]);
    await recorder.discard();
  });

  it("starts the caller's track where its earliest frames say, when the first ones came late in a burst", async () => {
    const dataDir = await tempDir();
    const recorder = new CallRecorder(START, spoolDirOf(dataDir, 'CAburst'));
    // Spoken from 100 ms, one frame every 20 ms; the first five all arrived at 300 ms, the rest on time.
    for (let f = 0; f < 30; f++)
      recorder.addUser(
        frame(() => 1_000 + f),
        START + Math.max(300, 120 + 20 * f),
      );
    recorder.stop(START + 800);
    const [user] = await recorder.save(new LocalFileStorage(dataDir), 'CAburst', ['user'], 'wav');
    const samples = decodeWav(await readFile(user!.path!)).samples;
    const at100 = (100 * RECORDING_RATE) / 1000;
    expect(samples.findIndex((v) => v !== 0)).toBe(at100);
    expect(samples[at100 + 10 * FRAME]).toBe(1_010);
    await recorder.discard();
  });

  it('stores the peaks of the caller and of the assistant beside the tracks, measured from the audio the tracks hold', async () => {
    const dataDir = await tempDir();
    const storage = new LocalFileStorage(dataDir);
    const recorder = new CallRecorder(START, spoolDirOf(dataDir, 'CApeaks'));
    const expected = feed(recorder);
    const stored = await recorder.save(storage, 'CApeaks', TRACKS, 'mp3');
    expect(existsSync(path.join(path.dirname(stored[0]!.path!), 'peaks.json'))).toBe(true);
    const peaks = (await readPeaks(storage, 'CApeaks'))!;
    expect(peaks).toMatchObject({ bucketMs: 100, durationMs: stored[0]!.durationMs });
    expect(Array.from(peaks.tracks.user!)).toEqual(levelsOf(expected.user));
    expect(Array.from(peaks.tracks.assistant!)).toEqual(levelsOf(expected.assistant));
    // The assistant was silent for its first 500 ms and spoke from 500 ms; the caller spoke throughout.
    expect(Array.from(peaks.tracks.assistant!.subarray(0, 5))).toEqual([0, 0, 0, 0, 0]);
    expect(peaks.tracks.assistant![5]).toBe(levelOf(10_359));
    expect(peaks.tracks.user!.every((level) => level === levelOf(30_000))).toBe(true);
    await recorder.discard();
  });

  it('measures both sides from the mixed track when only it is kept, and keeps no peaks of a side no track holds', async () => {
    const dataDir = await tempDir();
    const storage = new LocalFileStorage(dataDir);
    const mixedOnly = new CallRecorder(START, spoolDirOf(dataDir, 'CAmixed'));
    const expected = feed(mixedOnly);
    await mixedOnly.save(storage, 'CAmixed', ['mixed'], 'wav');
    const mixedPeaks = (await readPeaks(storage, 'CAmixed'))!;
    expect(Array.from(mixedPeaks.tracks.user!)).toEqual(levelsOf(expected.user));
    expect(Array.from(mixedPeaks.tracks.assistant!)).toEqual(levelsOf(expected.assistant));
    await mixedOnly.discard();

    const assistantOnly = new CallRecorder(START, spoolDirOf(dataDir, 'CAassistant'));
    feed(assistantOnly);
    await assistantOnly.save(storage, 'CAassistant', ['assistant'], 'wav');
    expect(Object.keys((await readPeaks(storage, 'CAassistant'))!.tracks)).toEqual(['assistant']);
    await assistantOnly.discard();
  });

  it('stores the tracks when their peaks cannot be stored, and says why', async () => {
    const dataDir = await tempDir();
    const local = new LocalFileStorage(dataDir);
    const refusingPeaks: RecordingStorage = {
      put: (key, body) => (key.endsWith('/peaks.json') ? Promise.reject(new Error('peaks refused')) : local.put(key, body)),
      size: (key) => local.size(key),
      read: (key, range) => local.read(key, range),
      remove: (key) => local.remove(key),
    };
    const recorder = new CallRecorder(START, spoolDirOf(dataDir, 'CAnopeaks'));
    feed(recorder);
    const errors: unknown[] = [];
    const stored = await recorder.save(refusingPeaks, 'CAnopeaks', TRACKS, 'wav', { onPeaksError: (error) => errors.push(error) });
    expect(stored.map((t) => t.track)).toEqual(TRACKS);
    for (const t of stored) expect(existsSync(t.path!)).toBe(true);
    expect(errors).toEqual([new Error('peaks refused')]);
    expect(await readPeaks(local, 'CAnopeaks')).toBeNull();
    await recorder.discard();
  });

  it('renders a recording that never received audio as silence as long as the call', async () => {
    const dataDir = await tempDir();
    const recorder = new CallRecorder(START, spoolDirOf(dataDir, 'CAquiet'));
    recorder.stop(START + 500);
    const [user] = await recorder.save(new LocalFileStorage(dataDir), 'CAquiet', ['user'], 'wav');
    expect(user!.durationMs).toBe(500);
    const wav = decodeWav(await readFile(user!.path!));
    expect(wav.samples.length).toBe(8000);
    expect(wav.samples.every((s) => s === 0)).toBe(true);
    await recorder.discard();
  });
});
