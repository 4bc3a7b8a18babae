import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestThread } from './request-thread.js';

// A thread that echoes, answers out of order, honours a cancel, and dies when asked to.
const ECHO = `
import { parentPort } from 'node:worker_threads';
const held = new Map();
parentPort.on('message', (m) => {
  if (m.type === 'hold') return held.set(m.id, m);
  if (m.type === 'release') { for (const h of held.values()) parentPort.postMessage({ id: h.id, text: h.text }); held.clear(); return; }
  if (m.type === 'cancel') { held.delete(m.id); return parentPort.postMessage({ id: m.id, cancelled: true }); }
  if (m.type === 'die') process.exit(3);
  parentPort.postMessage({ id: m.id, text: m.text.toUpperCase() });
});`;

let dir: string;
let entry: URL;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'request-thread-'));
  await writeFile(path.join(dir, 'echo.mjs'), ECHO);
  entry = pathToFileURL(path.join(dir, 'echo.mjs'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

type Answer = { id: number; text?: string; cancelled?: boolean };
const stopped = (why: string) => new Error(`stopped (${why})`);

describe('a request thread', () => {
  it('answers each request with the answer of its own id, whatever the order they come back in', async () => {
    const thread = new RequestThread<Answer>(entry, stopped);
    const held = thread.request({ type: 'hold', text: 'first' });
    const quick = await thread.request({ text: 'second' });
    expect(quick.text).toBe('SECOND');
    void thread.request({ type: 'release' }).catch(() => {});
    expect((await held).text).toBe('first');
    await thread.close();
  });

  it('sends the cancel of a request still waiting when its signal aborts', async () => {
    const thread = new RequestThread<Answer>(entry, stopped);
    const abort = new AbortController();
    const held = thread.request({ type: 'hold', text: 'x' }, { signal: abort.signal, message: (id) => ({ type: 'cancel', id }) });
    abort.abort();
    expect(await held).toMatchObject({ cancelled: true });
    await thread.close();
  });

  it('rejects every waiting request when the thread dies, and starts a new thread for the next', async () => {
    const thread = new RequestThread<Answer>(entry, stopped);
    const held = thread.request({ type: 'hold', text: 'x' });
    void thread.request({ type: 'die' }).catch(() => {});
    await expect(held).rejects.toThrow('stopped (exit code 3)');
    expect((await thread.request({ text: 'again' })).text).toBe('AGAIN');
    await thread.close();
  });

  it('rejects what waits when closed', async () => {
    const thread = new RequestThread<Answer>(entry, stopped);
    const held = thread.request({ type: 'hold', text: 'x' });
    await thread.close();
    await expect(held).rejects.toThrow(/stopped/);
  });
});
