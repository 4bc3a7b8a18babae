import { createReadStream } from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';

/**
 * Where recordings go. Files under DATA_DIR by default; an S3-compatible store implements the same calls (PutObject,
 * HeadObject, GetObject with a Range).
 */
export interface RecordingStorage {
  /** Stores bytes under a key such as `recordings/CA123/mixed.mp3`; returns a local path when there is one. */
  put(key: string, bytes: Buffer, contentType: string): Promise<{ path?: string }>;
  /** The stored object's size, or null when there is none. */
  size(key: string): Promise<number | null>;
  /** The bytes from `start` to `end` inclusive (the whole object without a range). */
  read(key: string, range?: { start: number; end: number }): Readable;
}

export class LocalFileStorage implements RecordingStorage {
  constructor(private readonly root: string) {}

  #resolve(key: string): string {
    const target = path.resolve(this.root, key);
    // Keys are built by the runtime from call ids, but a key must never escape the root all the same.
    if (!target.startsWith(path.resolve(this.root) + path.sep)) throw new Error('recording key escapes the storage root');
    return target;
  }

  async put(key: string, bytes: Buffer): Promise<{ path: string }> {
    const target = this.#resolve(key);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, bytes);
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
}
