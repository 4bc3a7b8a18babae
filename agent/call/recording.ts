import { log } from '@livekit/agents';
import path from 'node:path';
import type { StoredTrack, Track } from '../../media/call-recorder.js';
import { storeSpooledTracks } from '../../media/recording-render.js';
import { openSpool, spoolDirOf } from '../../media/recording-spool.js';
import { LocalFileStorage, type RecordingStorage } from '../../media/recording-storage.js';
import type { AssistantSettings } from '../../modules/assistants/settings.js';
import { DEFAULT_DATA_DIR } from '../../lib/config.js';
import type { StoredRecording } from '../../modules/calls/store.js';

// The call's recording as the assistant's `recording_settings` ask for it: which tracks, in which format, stored where.
// Used at the end of a call (agent/call/run-call.ts) and by the sweep that ends a call whose process died
// (agent/call/recovery.ts), which renders what the dead process had spooled.

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
  return { track: t.track, format: t.format, storageKey: t.storageKey, duration_ms: t.durationMs, size_bytes: t.sizeBytes, ...(t.path ? { path: t.path } : {}) };
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
}): Promise<StoredRecording[] | null> {
  const tracks = recordedTracks(options.settings);
  const spool = await openSpool(spoolDirOf(options.dataDir, options.callSid));
  if (!spool) {
    if (tracks.length > 0) log().warn({ callSid: options.callSid }, 'no recording spool for a call whose process died');
    return null;
  }
  try {
    const lengthSamples = Math.max(spool.samples.user, spool.samples.assistant);
    const stored = await storeSpooledTracks(spool, { callSid: options.callSid, tracks, format: options.settings.recording_format, lengthSamples, storage: options.storage });
    return stored.map(storedRecording);
  } finally {
    await spool.close();
  }
}
