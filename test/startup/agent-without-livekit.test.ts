import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from '../../prisma/embedded-postgres.js';
import { killGroup, runNpm, scriptOutput, serviceEnv, waitForExit, type NpmProcess } from './service-process.js';

// Without LiveKit a worker alone gets no calls (the built-in transports hand theirs to the worker inside `npm start`):
// it must say so and fail, not report "started" and idle.

let dataDir: string;
let running: NpmProcess | undefined;
beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'voice-agent-'));
});
afterAll(async () => {
  killGroup(running);
  await fs.rm(dataDir, { recursive: true, force: true });
});

it('npm run agent without LiveKit says what it needs and exits 1 without starting a database', async () => {
  running = runNpm(['run', 'agent'], serviceEnv(dataDir, await freePort()));
  expect(await waitForExit(running)).toBe(1);
  const output = scriptOutput(running).trim();
  expect(output).toBe(
    'cannot start: npm run agent takes its calls from a LiveKit server: set LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET, or run `npm start`, whose worker runs calls from the built-in transports',
  );
  await expect(fs.access(path.join(dataDir, 'postgres'))).rejects.toThrow();
}, 120_000);
