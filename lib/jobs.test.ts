import { spawn, type ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { delay, settledWithin } from './async.js';
import { holdLease, startJobLoop, type JobLoop } from './jobs.js';
import { until } from '../test/helpers/until.js';
import type { ChangeFeed, ChannelHandlers } from './pg-listen.js';

const JOBS = new URL('./jobs.ts', import.meta.url).href;

describe('the background job loop', () => {
  it('runs a pass at start and then once per interval', async () => {
    let passes = 0;
    const loop = startJobLoop({ intervalMs: 40, onError: () => {}, pass: async () => void (passes += 1) });
    expect(passes).toBe(1);
    // Nothing wakes it: the interval alone brings the next passes.
    await until(() => passes >= 3, { intervalMs: 5 });
    await loop.stop();
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
    expect(passes).toBe(1);
    loop.wake();
    await until(() => release, { intervalMs: 5 });
    expect(passes).toBe(2);
    loop.wake(); // during pass 2: it may have missed what this wake is for
    release!();
    // Without the wake during pass 2 the next pass would come a minute later.
    await until(() => passes === 3, { intervalMs: 5 });
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
    await until(() => passes === 5, { intervalMs: 5 });
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
    await until(() => passes >= 2, { intervalMs: 5 });
    await loop.stop();
    expect(errors.map((e) => (e as Error).message)).toEqual(['database away']);
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
    // Unbounded, the stop would wait for ever.
    expect(await loop.stop(30)).toBe(false);
  });

  it('bounds the wait for a pass under way too, so a hung database cannot hang a stop', async () => {
    const loop = startJobLoop({ intervalMs: 60_000, onError: () => {}, pass: () => new Promise(() => {}) });
    expect(await loop.stop(30)).toBe(false);
  });

  it('pauses for errorPauseMs after a failed pass, and a wake cuts the pause short', async () => {
    let passes = 0;
    const loop = startJobLoop({
      intervalMs: 10,
      errorPauseMs: 60_000,
      onError: () => {},
      pass: async () => {
        passes += 1;
        if (passes === 1) throw new Error('database away');
      },
    });
    await delay(60);
    expect(passes).toBe(1);
    loop.wake();
    // After the wake, back to the 10 ms interval: without it the third pass would come a minute later.
    await until(() => passes >= 3, { intervalMs: 5 });
    await loop.stop();
  });

  it('hands the loop to onError, which can tell a failure while stopping from one in service', async () => {
    let release: (() => void) | undefined;
    const seen: boolean[] = [];
    const loop = startJobLoop({
      intervalMs: 60_000,
      onError: (_error, l) => seen.push(l.stopping),
      pass: () => new Promise((_resolve, reject) => (release = () => reject(new Error('connection closed')))),
    });
    const stopped = loop.stop();
    release!();
    expect(await stopped).toBe(true);
    expect(seen).toEqual([true]);
  });

  it('calls onSettled as each tracked piece of work settles, once it has left inFlight', async () => {
    const seen: number[] = [];
    const loop = startJobLoop({
      intervalMs: 60_000,
      onError: () => {},
      onSettled: (l) => seen.push(l.inFlight),
      pass: async (l) => {
        l.track(delay(10));
        l.track(delay(20).then(() => Promise.reject(new Error('failed work settles too'))));
      },
    });
    await until(() => seen.length === 2, { intervalMs: 5 });
    expect(seen).toEqual([1, 0]);
    await loop.stop();
  });

  it('lets onSettled refill: a pass limited to two in flight is woken as soon as a slot frees', async () => {
    let started = 0;
    const loop = startJobLoop({
      intervalMs: 60_000,
      onError: () => {},
      onSettled: (l) => l.wake(),
      pass: async (l) => {
        while (l.inFlight < 2 && started < 6) {
          started += 1;
          l.track(delay(5));
        }
      },
    });
    // The interval is a minute: only the refills started all six.
    await until(() => started === 6, { intervalMs: 5 });
    await loop.stop();
  });

  it('keeps the process alive between passes unless told not to', async () => {
    // A process of its own that does nothing but run the loop: it lives on, or it exits after the first pass.
    const run = (unref: boolean) =>
      spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          '--input-type=module',
          '-e',
          `import { startJobLoop } from ${JSON.stringify(JOBS)};
          startJobLoop({ intervalMs: 60_000, unref: ${unref}, onError() {}, pass: async () => void process.stdout.write('pass') });`,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
    const firstPass = (child: ChildProcess) => new Promise((resolve) => child.stdout!.once('data', resolve));
    const exit = (child: ChildProcess) => new Promise((resolve) => child.once('exit', resolve));

    const held = run(false);
    try {
      await firstPass(held);
      await delay(500);
      expect(held.exitCode).toBeNull();
    } finally {
      held.kill();
    }
    const free = run(true);
    try {
      const exited = exit(free);
      await firstPass(free);
      expect(await settledWithin(exited, 10_000)).toBe(true);
      expect(free.exitCode).toBe(0);
    } finally {
      free.kill();
    }
  });

  it('is woken by its channels on the change feed, and when the feed is back; it stops hearing them once stopped', async () => {
    const subscribed = new Map<string, ChannelHandlers>();
    const feed: ChangeFeed = {
      subscribe(channel, handlers) {
        subscribed.set(channel, handlers);
        return () => subscribed.delete(channel);
      },
      close: async () => {},
    };
    let passes = 0;
    const loop = startJobLoop({ intervalMs: 60_000, onError: () => {}, pass: async () => void (passes += 1), wakeOn: { feed, channels: ['a', 'b'] } });
    expect([...subscribed.keys()]).toEqual(['a', 'b']);
    subscribed.get('a')!.onNotify('');
    await until(() => passes === 2, { intervalMs: 5 });
    subscribed.get('b')!.onReset();
    await until(() => passes === 3, { intervalMs: 5 });
    await loop.stop();
    expect(subscribed.size).toBe(0);
  });
});

describe('a held lease', () => {
  it('is renewed every interval, never two renewals at once, and no more once released', async () => {
    let renewals = 0;
    let running = 0;
    let most = 0;
    const lease = holdLease({
      everyMs: 5,
      onError: () => {},
      renew: async () => {
        renewals += 1;
        most = Math.max(most, ++running);
        await delay(20);
        running -= 1;
        return true;
      },
    });
    await until(() => renewals >= 3, { intervalMs: 5 });
    await lease.release();
    const after = renewals;
    expect(running).toBe(0);
    await delay(50);
    expect(renewals).toBe(after);
    expect(most).toBe(1);
  });

  it('says when the row is lost, and reports a renewal that failed without giving the lease up', async () => {
    const answers: (boolean | Error)[] = [new Error('database away'), true, false];
    const errors: unknown[] = [];
    let lost = 0;
    const lease = holdLease({
      everyMs: 5,
      onError: (error) => errors.push(error),
      onLost: () => (lost += 1),
      renew: async () => {
        const answer = answers.shift() ?? false;
        if (answer instanceof Error) throw answer;
        return answer;
      },
    });
    await until(() => lost > 0, { intervalMs: 5 });
    await lease.release();
    expect((errors as Error[]).map((e) => e.message)).toEqual(['database away']);
  });
});
