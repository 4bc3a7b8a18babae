import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Where recordings go. Files under DATA_DIR by default; an S3-compatible store implements the same calls (PutObject,
 * or a multipart upload for a stream; HeadObject; GetObject with a Range).
 */
export interface RecordingStorage {
  /**
   * Stores an object under a key such as `recordings/CA123/mixed.mp3`, whole or not at all: a reader never sees half an
   * object. A stream is how a long recording is stored without holding it in memory. Returns a local path when there
   * is one.
   */
  put(key: string, body: Buffer | Readable, contentType: string): Promise<{ path?: string }>;
  /** The stored object's size, or null when there is none. */
  size(key: string): Promise<number | null>;
  /** The bytes from `start` to `end` inclusive (the whole object without a range). */
  read(key: string, range?: { start: number; end: number }): Readable;
  /** Deletes the object; one already gone is no error (DeleteObject's own answer to a missing key). */
  remove(key: string): Promise<void>;
}

export class LocalFileStorage implements RecordingStorage {
  constructor(private readonly root: string) {}

  #resolve(key: string): string {
    const target = path.resolve(this.root, key);
    // Keys are built by the runtime from call ids, but a key must never escape the root all the same.
    if (!target.startsWith(path.resolve(this.root) + path.sep)) throw new Error('recording key escapes the storage root');
    return target;
  }

  async put(key: string, body: Buffer | Readable): Promise<{ path: string }> {
    const target = this.#resolve(key);
    await mkdir(path.dirname(target), { recursive: true });
    // Written beside the target under a name of its own, then renamed over it: rename is atomic, so two writers of one
    // key (two workers recovering the same call) each leave a whole file, and a reader never sees a torn one.
    const partial = `${target}.${randomUUID()}.part`;
    try {
      await pipeline(Buffer.isBuffer(body) ? Readable.from([body]) : body, createWriteStream(partial));
      await rename(partial, target);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    return { path: target };
  }

  async size(key: string): Promise<number | null> {
    try {
      const info = await stat(this.#resolve(key));
      return info.isFile() ? info.size : null;
    } catch {
      return null;
    }
  }

  read(key: string, range?: { start: number; end: number }): Readable {
    return createReadStream(this.#resolve(key), range ? { start: range.start, end: range.end } : {});
  }

  async remove(key: string): Promise<void> {
    const target = this.#resolve(key);
    await rm(target, { force: true });
    // The call's folder goes with its last track, so a deleted recording leaves no trace of the call in the storage.
    await rmdir(path.dirname(target)).catch(() => {});
  }
}
