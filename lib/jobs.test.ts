import { describe, expect, it } from 'vitest';
import { delay } from './async.js';
import { startJobLoop, type JobLoop } from './jobs.js';

describe('the background job loop', () => {
  it('runs a pass at start and then once per interval', async () => {
    let passes = 0;
    const loop = startJobLoop({ intervalMs: 40, onError: () => {}, pass: async () => void (passes += 1) });
    await delay(10);
    expect(passes).toBe(1);
    await delay(100);
    await loop.stop();
    expect(passes).toBeGreaterThanOrEqual(2);
    expect(passes).toBeLessThanOrEqual(4);
  });

  it('runs a pass at once when woken, and again after the pass under way when woken during it', async () => {
    let passes = 0;
    let release: (() => void) | undefined;
    const loop = startJobLoop({
      intervalMs: 60_000,
      onError: () => {},
      pass: async () => {
        passes += 1;
        if (passes === 2) await new Promise<void>((resolve) => (release = resolve));
      },
    });
    await delay(10);
    loop.wake();
    await delay(10);
    expect(passes).toBe(2);
    loop.wake(); // during pass 2: it may have missed what this wake is for
    release!();
    await delay(10);
    expect(passes).toBe(3);
    await loop.stop();
  });

  it('never runs two passes at once', async () => {
    let concurrent = 0;
    let most = 0;
    const loop = startJobLoop({
      intervalMs: 1,
      onError: () => {},
      pass: async () => {
        concurrent += 1;
        most = Math.max(most, concurrent);
        await delay(5);
        concurrent -= 1;
      },
    });
    for (let i = 0; i < 20; i++) loop.wake();
    await delay(50);
    await loop.stop();
    expect(most).toBe(1);
  });

  it('goes again without sleeping while a pass says more is due', async () => {
    let passes = 0;
    const loop = startJobLoop({ intervalMs: 60_000, onError: () => {}, pass: async () => (passes += 1) < 5 });
    await delay(20);
    await loop.stop();
    expect(passes).toBe(5);
  });

  it('reports a failed pass and tries again at the next interval', async () => {
    const errors: unknown[] = [];
    let passes = 0;
    const loop = startJobLoop({
      intervalMs: 20,
      onError: (error) => errors.push(error),
      pass: async () => {
        passes += 1;
        if (passes === 1) throw new Error('database away');
      },
    });
    await delay(60);
    await loop.stop();
    expect(errors.map((e) => (e as Error).message)).toEqual(['database away']);
    expect(passes).toBeGreaterThanOrEqual(2);
  });

  it('stops waiting for the work its passes started, and runs no pass after', async () => {
    let finished = false;
    let passes = 0;
    const loop = startJobLoop({
      intervalMs: 5,
      onError: () => {},
      pass: async (l: JobLoop) => {
        passes += 1;
        if (passes === 1) l.track(delay(50).then(() => (finished = true)));
      },
    });
    await delay(10);
    expect(loop.inFlight).toBe(1);
    expect(await loop.stop()).toBe(true);
    expect(finished).toBe(true);
    const after = passes;
    await delay(20);
    expect(passes).toBe(after);
    expect(loop.inFlight).toBe(0);
  });

  it('gives up waiting for started work after the drain bound and says so', async () => {
    const loop = startJobLoop({
      intervalMs: 60_000,
      onError: () => {},
      pass: async (l) => l.track(new Promise(() => {})),
    });
    await delay(5);
    const started = Date.now();
    expect(await loop.stop(30)).toBe(false);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
