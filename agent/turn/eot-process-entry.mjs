// The audio end-of-turn model's own process (agent/turn/eot-process.ts), at lower scheduling priority: on a loaded
// core the calls' audio pacing runs first and the model takes what is left.
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

// Its parent (agent/turn/eot-process.ts) starts it with both set, from the configuration it checked at start-up.
const NICE = Number(process.env.EOT_PROCESS_NICE);

/**
 * Lowers the priority of every thread of this process. On Linux a priority belongs to a thread, and a new thread takes
 * its creator's: the model runs on libuv's pool and its own, started before or during the first inference from threads
 * that still had the normal priority, so each existing thread is set, after a first inference has started them all.
 */
function lowerPriority() {
  let tids = [0];
  try {
    tids = readdirSync('/proc/self/task').map(Number);
  } catch {
    // No /proc (not Linux): only this thread, and the threads it starts from now on.
  }
  for (const tid of tids) {
    try {
      os.setPriority(tid, NICE);
    } catch {
      // Not permitted here, or the thread has ended: that thread keeps the normal priority.
    }
  }
}

// The runner is not re-exported by the package, so it is loaded from the package's own files.
const require = createRequire(import.meta.url);
const runnerPath = path.join(path.dirname(require.resolve('@livekit/agents')), 'inference/eot/runner.js');
const { default: EotRunner } = await import(pathToFileURL(runnerPath).href);
const { initializeLogger } = await import('@livekit/agents');
initializeLogger({ pretty: false, level: process.env.LOG_LEVEL });

const runner = new EotRunner();
await runner.initialize();
// 1.2 s of silence: the model's input size, so every pool it uses exists before the priorities are set.
await runner.run({ pcm: Buffer.alloc(19_200 * 2).toString('base64') });
lowerPriority();

/**
 * Answers the parent. A parent that stopped while the model loaded or ran has closed the channel: the answer is dropped
 * (the callback takes the error that would otherwise be thrown as an 'error' event, ending this process with a stack
 * trace in the service's output), and 'disconnect' ends the process.
 */
function reply(message) {
  if (process.connected) process.send?.(message, undefined, {}, () => {});
}

process.on('message', (message) => {
  const { id, data } = message;
  runner.run(data).then(
    (result) => reply({ id, result }),
    (error) => reply({ id, error: error instanceof Error ? error.message : String(error) }),
  );
});
// The parent is gone (exited, or closed the channel): nothing is left to answer.
process.on('disconnect', () => process.exit(0));
if (!process.connected) process.exit(0);
reply({ ready: true });
