import { mkdir, open, readFile, rename, rm, rmdir, stat, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

// A call's recording on local disk while the call runs, so that what was recorded outlives a process that dies. Each
// direction is one raw PCM file (16-bit little-endian mono) in which a sample's byte offset is its place on the call's
// timeline: sample n at byte 2n. The caller's audio is appended; the assistant's is written where it played, so the
// file already is the rendered track (a gap is a hole that reads as silence, and a later frame over an earlier one
// wins, as it did when the recording was rendered from memory). `spool.json` says how to read the files.
//
// Frames arrive every 20 ms; each one only joins a pending run in memory. Runs go to disk with one positional write
// each, at least every SPOOL_FLUSH_INTERVAL_MS, so a call holds about a second of audio in memory per direction.

/** The most audio a process that dies takes with it: pending audio is written out (and synced) this often. */
export const SPOOL_FLUSH_INTERVAL_MS = 1000;

export type SpoolTrack = 'user' | 'assistant';

const TRACKS: readonly SpoolTrack[] = ['user', 'assistant'];
const META_FILE = 'spool.json';
const BYTES_PER_SAMPLE = 2;

interface SpoolMeta {
  version: 1;
  encoding: 's16le';
  channels: 1;
  sampleRate: number;
  /** Epoch ms of sample 0. */
  startedAt: number;
}

/** `DATA_DIR/recordings/<call_sid>/.spool`: beside the tracks it becomes when they are stored as local files. */
export function spoolDirOf(dataDir: string, callSid: string): string {
  const recordings = path.resolve(dataDir, 'recordings');
  const dir = path.resolve(recordings, callSid, '.spool');
  // Call sids are ours (`CA` and hex), but a path built from one must never leave the recordings folder all the same.
  if (path.dirname(path.dirname(dir)) !== recordings) throw new Error('call sid is not a plain name');
  return dir;
}

interface PendingRun {
  /** Sample offset of the run's first sample. */
  at: number;
  parts: Int16Array[];
  samples: number;
}

export class SpoolWriter {
  readonly dir: string;
  readonly #meta: SpoolMeta;
  readonly #pending = new Map<SpoolTrack, PendingRun>();
  readonly #files = new Map<SpoolTrack, FileHandle>();
  readonly #unsynced = new Set<SpoolTrack>();
  #opening: Promise<void> | undefined;
  /** Disk work in order: positional writes must land in the order the frames came, so a later frame wins. */
  #queue: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #error: Error | undefined;
  #closing: Promise<void> | undefined;

  constructor(dir: string, options: { sampleRate: number; startedAt: number }) {
    this.dir = dir;
    this.#meta = { version: 1, encoding: 's16le', channels: 1, sampleRate: options.sampleRate, startedAt: options.startedAt };
  }

  /** Places samples at a sample offset of the track. Nothing touches the disk until the next flush. */
  write(track: SpoolTrack, at: number, samples: Int16Array): void {
    if (this.#closing || this.#error || samples.length === 0) return;
    const run = this.#pending.get(track);
    if (run && run.at + run.samples === at) {
      run.parts.push(samples);
      run.samples += samples.length;
    } else {
      if (run) this.#enqueue(track, run);
      this.#pending.set(track, { at, parts: [samples], samples: samples.length });
    }
    if (!this.#timer) {
      this.#timer = setInterval(() => void this.flush(), SPOOL_FLUSH_INTERVAL_MS);
      this.#timer.unref();
    }
  }

  /** Writes out and syncs what is pending; resolves once it is on disk. */
  flush(): Promise<void> {
    for (const [track, run] of this.#pending) this.#enqueue(track, run);
    this.#pending.clear();
    // Synced, not only written: with DATA_DIR on shared storage a lost machine's page cache is lost with it.
    this.#queue = this.#queue.then(() =>
      this.#guard(async () => {
        for (const track of this.#unsynced) await this.#files.get(track)!.datasync();
        this.#unsynced.clear();
      }),
    );
    return this.#queue;
  }

  /**
   * Writes out what is pending and closes the files; a spool that was never written to is created empty, so there is
   * always one to render. Safe to call twice. Rejects with the first write error: the spool is then incomplete.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      if (this.#timer) clearInterval(this.#timer);
      this.#timer = undefined;
      await this.flush();
      await this.#guard(() => this.#open());
      for (const file of this.#files.values()) await file.close().catch(() => {});
    })();
    return this.#closing.then(() => {
      if (this.#error) throw this.#error;
    });
  }

  #enqueue(track: SpoolTrack, run: PendingRun): void {
    const bytes = Buffer.concat(run.parts.map((s) => Buffer.from(s.buffer, s.byteOffset, s.byteLength)));
    this.#queue = this.#queue.then(() =>
      this.#guard(async () => {
        await this.#open();
        await this.#files.get(track)!.write(bytes, 0, bytes.length, run.at * BYTES_PER_SAMPLE);
        this.#unsynced.add(track);
      }),
    );
  }

  /** After a failed write the spool is incomplete: later writes are skipped and `close` reports the first error. */
  async #guard(work: () => Promise<void>): Promise<void> {
    if (this.#error) return;
    try {
      await work();
    } catch (error) {
      this.#error = error as Error;
    }
  }

  #open(): Promise<void> {
    this.#opening ??= (async () => {
      await mkdir(this.dir, { recursive: true });
      // 'w', not 'a': on Linux a file opened for appending ignores the position of a positional write.
      for (const track of TRACKS) this.#files.set(track, await open(path.join(this.dir, `${track}.pcm`), 'w'));
      // The description comes last and is renamed into place: a spool that has it has both its files.
      const partial = path.join(this.dir, `${META_FILE}.part`);
      await writeFile(partial, JSON.stringify(this.#meta));
      await rename(partial, path.join(this.dir, META_FILE));
    })();
    return this.#opening;
  }
}

export interface SpoolReader {
  readonly sampleRate: number;
  readonly startedAt: number;
  /** Samples on each track's timeline up to the end of its last audio written. */
  readonly samples: Readonly<Record<SpoolTrack, number>>;
  /** `count` samples from sample `from`; silence where nothing was written. */
  read(track: SpoolTrack, from: number, count: number): Promise<Int16Array>;
  close(): Promise<void>;
}

/** A spool's description; null when there is none. */
async function readSpoolMeta(dir: string): Promise<SpoolMeta | null> {
  let meta: SpoolMeta;
  try {
    meta = JSON.parse(await readFile(path.join(dir, META_FILE), 'utf8')) as SpoolMeta;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  if (meta.version !== 1 || meta.encoding !== 's16le' || meta.channels !== 1) throw new Error('recording spool in an unknown format');
  return meta;
}

/** Opens a spool to render it; null when there is none (the call recorded nothing here, or on another host's disk). */
export async function openSpool(dir: string): Promise<SpoolReader | null> {
  const meta = await readSpoolMeta(dir);
  if (!meta) return null;
  const files = new Map<SpoolTrack, FileHandle>();
  const samples = { user: 0, assistant: 0 };
  try {
    for (const track of TRACKS) {
      const file = await open(path.join(dir, `${track}.pcm`), 'r');
      files.set(track, file);
      samples[track] = Math.floor((await file.stat()).size / BYTES_PER_SAMPLE);
    }
  } catch (error) {
    for (const file of files.values()) await file.close().catch(() => {});
    throw error;
  }
  return {
    sampleRate: meta.sampleRate,
    startedAt: meta.startedAt,
    samples,
    async read(track, from, count) {
      const out = new Int16Array(count);
      const bytes = Math.max(Math.min(count, samples[track] - from), 0) * BYTES_PER_SAMPLE;
      const target = new Uint8Array(out.buffer);
      for (let done = 0; done < bytes;) {
        const { bytesRead } = await files.get(track)!.read(target, done, bytes - done, from * BYTES_PER_SAMPLE + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return out;
    },
    async close() {
      for (const file of files.values()) await file.close().catch(() => {});
    },
  };
}

/**
 * Epoch ms of the end of the last audio on disk, on either track: how long the call is known to have run. Null when
 * there is no spool. Reads only the description and the files' sizes.
 */
export async function spoolEndOf(dir: string): Promise<number | null> {
  const meta = await readSpoolMeta(dir);
  if (!meta) return null;
  let samples = 0;
  for (const track of TRACKS) {
    const size = await stat(path.join(dir, `${track}.pcm`)).then(
      (info) => info.size,
      () => 0,
    );
    samples = Math.max(samples, Math.floor(size / BYTES_PER_SAMPLE));
  }
  return meta.startedAt + (samples * 1000) / meta.sampleRate;
}

/** Removes a spool once its tracks are stored; nothing there is fine. */
export async function removeSpool(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  // The call's folder is left empty when its tracks went to an object store; it goes too (it stays when it has files).
  await rmdir(path.dirname(dir)).catch(() => {});
}
