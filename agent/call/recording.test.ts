import { AudioFrame } from '@livekit/rtc-node';
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalFileStorage } from '../../media/recording/storage.js';
import { decodeWav } from '../../media/wav.js';
import { AssistantSettings } from '../../modules/assistants/settings.js';
import { beepedStretches, startRecording, type RecordedAudio } from './recording.js';

// A running call's recording, fed frames by a transport stand-in: what it listens to, where it spools, what it stores.

const RATE = 16_000;
const T0 = 1_700_000_000_000;
/** The caller's frames are pushed all at once here: each says it arrived one frame into the call, so the track starts with them. */
const arrivedAtStart = () => T0 + 20;

/** A transport's two directions: frames the caller sent and frames played to the caller, with their listeners. */
class FakeAudio implements RecordedAudio {
  readonly heard = new Set<(frame: AudioFrame) => void>();
  readonly played = new Set<(frame: AudioFrame, playedAt: number) => void>();
  audioInput = { onFrame: (listener: (frame: AudioFrame) => void) => (this.heard.add(listener), () => void this.heard.delete(listener)) };
  audioOutput = { onPlayed: (listener: (frame: AudioFrame, playedAt: number) => void) => (this.played.add(listener), () => void this.played.delete(listener)) };

  /** `ms` of the caller at a constant `value`, in 20 ms frames. */
  callerSays(ms: number, value: number): void {
    for (let i = 0; i < ms / 20; i++) for (const l of this.heard) l(frame(value));
  }

  /** `ms` of the assistant at a constant `value`, played from `atMs` after the start. */
  assistantPlays(atMs: number, ms: number, value: number): void {
    for (let i = 0; i < ms / 20; i++) for (const l of this.played) l(frame(value), T0 + atMs + i * 20);
  }
}

function frame(value: number): AudioFrame {
  return new AudioFrame(new Int16Array(RATE / 50).fill(value), RATE, 1, RATE / 50);
}

const settings = (fields: Record<string, unknown>) => AssistantSettings.parse({ name: 'Recording', recording_settings: fields }).recording_settings;

const at = (samples: Int16Array, ms: number) => samples[Math.floor((ms * RATE) / 1000)];

let dataDir: string;
let audio: FakeAudio;

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'call-recording-'));
  audio = new FakeAudio();
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );

describe("a running call's recording", () => {
  it('records nothing, and listens to nothing, when the settings ask for no track', () => {
    expect(startRecording(settings({ recording_enabled: false }), audio, { callSid: 'CAoff', startedAt: T0, dataDir, clock: arrivedAtStart })).toBeUndefined();
    expect(
      startRecording(settings({ recording_enabled: true, record_user_audio: false, record_assistant_audio: false, record_mixed_audio: false }), audio, {
        callSid: 'CAnone',
        startedAt: T0,
        dataDir,
        clock: arrivedAtStart,
      }),
    ).toBeUndefined();
    expect(audio.heard.size + audio.played.size).toBe(0);
  });

  it("spools under DATA_DIR while the call runs, and stores the asked-for tracks as long as the call, the caller's audio from the start and the assistant's where it played", async () => {
    const recording = startRecording(settings({ recording_enabled: true, recording_format: 'wav', record_mixed_audio: false }), audio, {
      callSid: 'CAwav',
      startedAt: T0,
      dataDir,
      clock: arrivedAtStart,
    })!;
    expect(recording.spoolDir).toBe(path.join(dataDir, 'recordings', 'CAwav', '.spool'));
    audio.callerSays(1_000, 1_000);
    audio.assistantPlays(1_200, 400, 2_000);
    recording.stop(T0 + 2_000);

    const stored = await recording.save(new LocalFileStorage(dataDir));
    expect(stored.map((r) => [r.track, r.format, r.duration_ms])).toEqual([
      ['user', 'wav', 2_000],
      ['assistant', 'wav', 2_000],
    ]);
    const track = async (name: string) => decodeWav(await readFile(path.join(dataDir, stored.find((r) => r.track === name)!.storageKey))).samples;
    const user = await track('user');
    expect([at(user, 500), at(user, 1_500)]).toEqual([1_000, 0]);
    const assistant = await track('assistant');
    expect([at(assistant, 1_100), at(assistant, 1_400), at(assistant, 1_700)]).toEqual([0, 2_000, 0]);
    // The spool stays until the call's record lists the tracks.
    expect(await exists(recording.spoolDir)).toBe(true);
  });

  it('records nothing after the end of the call, and stops listening to the audio', async () => {
    const recording = startRecording(
      settings({ recording_enabled: true, recording_format: 'wav', record_assistant_audio: false, record_mixed_audio: false }),
      audio,
      { callSid: 'CAstop', startedAt: T0, dataDir, clock: arrivedAtStart },
    )!;
    audio.callerSays(500, 1_000);
    recording.stop(T0 + 500);
    expect(audio.heard.size + audio.played.size).toBe(0);
    recording.stop(T0 + 900);
    const [user] = await recording.save(new LocalFileStorage(dataDir));
    expect(user!.duration_ms).toBe(500);
  });

  it('removes its spool when discarded', async () => {
    const recording = startRecording(settings({ recording_enabled: true, recording_format: 'wav' }), audio, {
      callSid: 'CAgone',
      startedAt: T0,
      dataDir,
      clock: arrivedAtStart,
    })!;
    audio.callerSays(200, 1_000);
    recording.stop(T0 + 200);
    await recording.save(new LocalFileStorage(dataDir));
    await recording.discard();
    expect(await exists(recording.spoolDir)).toBe(false);
  });
});

describe('what a redacted recording beeps', () => {
  const turns = [
    { role: 'assistant' as const, start_ms: 0, end_ms: 1500 },
    { role: 'user' as const, start_ms: 2600, end_ms: 3400 },
    { role: 'assistant' as const, start_ms: 4100, end_ms: 6000 },
    { role: 'user' as const, start_ms: 6800, end_ms: 7200 },
  ];

  it("beeps an assistant's turn over its own times and a caller's over their whole stretch between the turns around it", () => {
    expect(beepedStretches(turns, (i) => i === 1 || i === 2)).toEqual([
      { role: 'user', start_ms: 1500, end_ms: 4100 },
      { role: 'assistant', start_ms: 4100, end_ms: 6000 },
    ]);
  });

  it("beeps a caller's last turn to its own end, and nothing for turns that said no detail", () => {
    expect(beepedStretches(turns, (i) => i === 3)).toEqual([{ role: 'user', start_ms: 6000, end_ms: 7200 }]);
    expect(beepedStretches(turns, () => false)).toEqual([]);
  });
});
