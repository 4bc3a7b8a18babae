import { log } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';
import path from 'node:path';
import { CallRecorder, RECORDING_RATE, type StoredTrack, type Track } from '../../media/recording/recorder.js';
import { storeSpooledTracks } from '../../media/recording/render.js';
import { sampleRangesOf, type SampleRange } from '../../media/recording/beep.js';
import { openSpool, spoolDirOf } from '../../media/recording/spool.js';
import { LocalFileStorage, type RecordingStorage } from '../../media/recording/storage.js';
import type { AssistantSettings } from '../../modules/assistants/index.js';
import { DEFAULT_DATA_DIR } from '../../lib/config.js';
import type { StoredRecording } from '../../modules/calls/index.js';

// The call's recording as the assistant's `recording_settings` ask for it: which tracks, in which format, stored where.
// A running call records its audio as it is heard and played (`startRecording`); the sweep that ends a call whose
// process died (agent/call/recovery.ts) renders what the dead process had spooled (`storeOrphanRecording`).

export function recordingStorageOf(options: { storage?: RecordingStorage | undefined; dataDir?: string | undefined }): RecordingStorage {
  return options.storage ?? new LocalFileStorage(path.resolve(options.dataDir ?? DEFAULT_DATA_DIR));
}

/** The tracks to store; none when recording is off. */
export function recordedTracks(settings: AssistantSettings['recording_settings']): Track[] {
  if (!settings.recording_enabled) return [];
  const tracks: Track[] = [];
  if (settings.record_user_audio) tracks.push('user');
  if (settings.record_assistant_audio) tracks.push('assistant');
  if (settings.record_mixed_audio) tracks.push('mixed');
  return tracks;
}

export function storedRecording(t: StoredTrack): StoredRecording {
  return {
    track: t.track,
    format: t.format,
    storageKey: t.storageKey,
    duration_ms: t.durationMs,
    size_bytes: t.sizeBytes,
    ...(t.path ? { path: t.path } : {}),
  };
}

/**
 * How far a beep reaches past its turn's times, each side. A turn's times are the voice activity detector's, which
 * notices speech a little after it began and its end a little after it stopped; the caller's track is placed by when
 * its audio arrived. The margin keeps the first and last syllables of a turn under the beep.
 */
export const BEEP_MARGIN_MS = 400;

/** A turn of a `redacted` call whose words held a personal detail: its side and its times on the call's clock. */
export interface BeepedTurn {
  role: 'user' | 'assistant';
  start_ms: number;
  end_ms: number;
}

/**
 * What a redacted recording beeps for the turns, in spoken order, that said a personal detail (`said`). An assistant's
 * turn is beeped over its own times, which are its audio's. A caller's turn is dated by the voice detector, which on a
 * loaded machine can place it hundreds of milliseconds off its audio: the caller's whole stretch is beeped, from the
 * end of the turn before it to the start of the turn after it (its own end, if later). Beeping the caller's silence
 * costs nothing; leaving a word of the detail audible would.
 */
export function beepedStretches(turns: readonly BeepedTurn[], said: (index: number) => boolean): BeepedTurn[] {
  const out: BeepedTurn[] = [];
  turns.forEach((turn, i) => {
    if (!said(i)) return;
    if (turn.role !== 'user') return void out.push({ role: turn.role, start_ms: turn.start_ms, end_ms: turn.end_ms });
    const before = turns[i - 1];
    const after = turns[i + 1];
    out.push({
      role: 'user',
      start_ms: Math.min(turn.start_ms, before ? before.end_ms : 0),
      end_ms: Math.max(turn.end_ms, after ? after.start_ms : turn.end_ms),
    });
  });
  return out;
}

/** The turns' times as sample ranges of each direction's track, the margin added. */
export function beepRangesOf(turns: readonly BeepedTurn[], sampleRate = RECORDING_RATE): Record<'user' | 'assistant', SampleRange[]> {
  const of = (role: BeepedTurn['role']) =>
    sampleRangesOf(
      turns.filter((t) => t.role === role).map((t) => ({ startMs: t.start_ms, endMs: t.end_ms })),
      sampleRate,
      BEEP_MARGIN_MS,
    );
  return { user: of('user'), assistant: of('assistant') };
}

/** The tracks are stored without their peaks: the call's page shows no waveform, and the log says why. */
function peaksNotStored(callSid: string): (error: unknown) => void {
  return (error) => log().warn({ callSid, err: error }, 'recording peaks not stored');
}

/** The call's audio as a transport carries it: every frame the caller sent, and every frame played to the caller. */
export interface RecordedAudio {
  audioInput: { onFrame?(listener: (frame: AudioFrame) => void): () => void };
  audioOutput: { onPlayed?(listener: (frame: AudioFrame, playedAt: number) => void): () => void };
}

export interface CallRecording {
  readonly spoolDir: string;
  /** Stops recording at `at` (epoch ms), the end of the call, and stops listening to the audio. */
  stop(at: number): void;
  /**
   * Renders the asked-for tracks into storage, each as long as the call, with a beep over each of `beeped` (a
   * `redacted` call's turns that said a personal detail) on its side's track. The spool stays until `discard`.
   */
  save(storage: RecordingStorage, beeped?: readonly BeepedTurn[]): Promise<StoredRecording[]>;
  /** Removes the spool: only once the call's record lists the tracks, so a process that dies before leaves it to the recovery sweep. */
  discard(): Promise<void>;
}

/**
 * Starts recording the call's audio into its spool under `dataDir`, as the settings ask; undefined when they ask for no
 * track. Both tracks are on the call's clock: the caller's first frame is placed by when it arrived and the rest laid
 * end to end after it, the assistant's frames by when they played.
 */
export function startRecording(
  settings: AssistantSettings['recording_settings'],
  audio: RecordedAudio,
  call: { callSid: string; startedAt: number; dataDir?: string | undefined; clock?: () => number },
): CallRecording | undefined {
  const tracks = recordedTracks(settings);
  if (tracks.length === 0) return undefined;
  const recorder = new CallRecorder(call.startedAt, spoolDirOf(call.dataDir ?? DEFAULT_DATA_DIR, call.callSid));
  const stops = [
    audio.audioInput.onFrame?.((f) => recorder.addUser(f, (call.clock ?? Date.now)())),
    audio.audioOutput.onPlayed?.((f, at) => recorder.addAssistant(f, at)),
  ];
  return {
    spoolDir: recorder.spoolDir,
    stop(at) {
      recorder.stop(at);
      for (const stop of stops.splice(0)) stop?.();
    },
    async save(storage, beeped = []) {
      const stored = await recorder.save(storage, call.callSid, tracks, settings.recording_format, {
        onPeaksError: peaksNotStored(call.callSid),
        beeps: beepRangesOf(beeped),
      });
      return stored.map(storedRecording);
    },
    discard: () => recorder.discard(),
  };
}

/**
 * Renders the spool a dead call's process left, up to the last audio it wrote. Null when there is no spool: the call
 * recorded nothing yet, or it ran on another host whose DATA_DIR this worker cannot see; the call then ends without
 * a recording.
 */
export async function storeOrphanRecording(options: {
  callSid: string;
  settings: AssistantSettings['recording_settings'];
  dataDir: string;
  storage: RecordingStorage;
  /** A `redacted` call's stretches to beep (see CallRecording.save). */
  beeped?: readonly BeepedTurn[];
}): Promise<StoredRecording[] | null> {
  const tracks = recordedTracks(options.settings);
  const spool = await openSpool(spoolDirOf(options.dataDir, options.callSid));
  if (!spool) {
    if (tracks.length > 0) log().warn({ callSid: options.callSid }, 'no recording spool for a call whose process died');
    return null;
  }
  try {
    const lengthSamples = Math.max(spool.samples.user, spool.samples.assistant);
    const stored = await storeSpooledTracks(spool, {
      callSid: options.callSid,
      tracks,
      format: options.settings.recording_format,
      lengthSamples,
      storage: options.storage,
      onPeaksError: peaksNotStored(options.callSid),
      beeps: beepRangesOf(options.beeped ?? []),
    });
    return stored.map(storedRecording);
  } finally {
    await spool.close();
  }
}
