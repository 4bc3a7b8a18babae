import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Where recordings go. Files under DATA_DIR by default; an S3-compatible store implements the same two calls. */
export interface RecordingStorage {
  /** Stores bytes under a key such as `recordings/CA123/mixed.mp3`; returns a local path when there is one. */
  put(key: string, bytes: Buffer, contentType: string): Promise<{ path?: string }>;
}

export class LocalFileStorage implements RecordingStorage {
  constructor(private readonly root: string) {}

  async put(key: string, bytes: Buffer): Promise<{ path: string }> {
    const target = path.resolve(this.root, key);
    // Keys are built by the runtime from call ids, but a key must never escape the root all the same.
    if (!target.startsWith(path.resolve(this.root) + path.sep)) throw new Error('recording key escapes the storage root');
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, bytes);
    return { path: target };
  }
}
