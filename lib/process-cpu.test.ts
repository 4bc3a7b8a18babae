import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { until } from '../test/helpers/until.js';
import { processCpuMs } from './process-cpu.js';

describe.runIf(process.platform === 'linux')('processCpuMs', () => {
  it('reads this process’s CPU time as the runtime counts it', () => {
    const own = process.cpuUsage();
    const read = processCpuMs(process.pid)!;
    // The kernel counts in 10 ms ticks; the runtime in microseconds.
    expect(read).toBeGreaterThan(0);
    expect(Math.abs(read - (own.user + own.system) / 1000)).toBeLessThan(1_000);
  });

  it('grows while a child works, and is undefined once the child is gone', async () => {
    const child = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
    try {
      const used = await until(() => (processCpuMs(child.pid!) ?? 0) >= 100 && processCpuMs(child.pid!));
      expect(used).toBeGreaterThanOrEqual(100);
    } finally {
      child.kill('SIGKILL');
    }
    await once(child, 'exit');
    expect(processCpuMs(child.pid!)).toBeUndefined();
  });
});
