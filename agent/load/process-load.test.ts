import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../test/helpers/until.js';
import { LatenessWindow } from './lateness-window.js';
import { childCpuShares, FULL_AT_LATE_MS, FULL_LOAD, ProcessLoad } from './process-load.js';

// A calls' process's load from what its callers hear: frames leaving late make it full whatever the CPU says, and a
// LiveKit worker reads how hard each job process it forked works.

const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill('SIGKILL');
    if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
  }
});

describe("a process's load", () => {
  it('is full once its frames leave late at p95, and not while they leave on time', () => {
    let now = 0;
    const onTime = new ProcessLoad(new LatenessWindow(10_000, () => now));
    for (let i = 0; i < 500; i++) onTime.frameLeft(3);
    expect(onTime.reading().lateP95Ms).toBe(5);
    expect(onTime.reading().load).toBeLessThan(FULL_LOAD);

    const late = new ProcessLoad(new LatenessWindow(10_000, () => now));
    for (let i = 0; i < 500; i++) late.frameLeft(i % 2 === 0 ? 3 : FULL_AT_LATE_MS + 10);
    expect(late.reading().lateP95Ms).toBe(60);
    expect(late.reading().load).toBe(1);
    // Ten seconds of frames on time again, and it is not full any more.
    now += 11_000;
    for (let i = 0; i < 500; i++) late.frameLeft(3);
    expect(late.reading().load).toBeLessThan(FULL_LOAD);
  });

  it.runIf(process.platform === 'linux')('reads each child process’s CPU share: one that spins far above one that sleeps', async () => {
    const spin = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
    const sleep = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    children.push(spin, sleep);
    const shares = await until(() => {
      const now = childCpuShares();
      const spinning = now.get(spin.pid!);
      const sleeping = now.get(sleep.pid!);
      // Both read over the same interval, once the sleeper's own start-up is behind it.
      return spinning !== undefined && sleeping !== undefined && spinning > 0.1 && sleeping < 0.05 && { spinning, sleeping };
    });
    expect(shares.spinning).toBeGreaterThan(shares.sleeping * 3);
  });
});
