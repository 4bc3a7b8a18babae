import { setTimeout as timersSetTimeout } from 'node:timers';
import { setTimeout as promisedTimeout } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { scaleClock } from './scaled-clock.js';
import { wallClock } from './wall-clock.js';

describe('a scaled clock', () => {
  it('fires a timer of 300 ms of its time before a wall-clock timer of 250 ms, from every timer API', async () => {
    const restore = scaleClock(3);
    try {
      const order: string[] = [];
      const wall = new Promise<void>((resolve) => wallClock.setTimeout(() => resolve(void order.push('wall 250 ms')), 250));
      await Promise.all([
        new Promise<void>((resolve) => setTimeout(() => resolve(void order.push('global')), 300)),
        new Promise<void>((resolve) => timersSetTimeout(() => resolve(void order.push('node:timers')), 300)),
        promisedTimeout(300).then(() => void order.push('node:timers/promises')),
        wall,
      ]);
      expect(order.at(-1)).toBe('wall 250 ms');
    } finally {
      restore();
    }
  });

  it('dates what happens by its own time, keeps earlier dates dates, and gives the wall clock back', async () => {
    const before = new Date();
    const restore = scaleClock(4);
    try {
      // The scaled reads bracket the wall-clock ones, so the scaled span holds the wall-clock span.
      const start = Date.now();
      const wallStart = wallClock.now();
      await new Promise((resolve) => wallClock.setTimeout(resolve, 200));
      const wallElapsed = wallClock.now() - wallStart;
      const scaledElapsed = Date.now() - start;
      expect(scaledElapsed).toBeGreaterThanOrEqual(4 * wallElapsed - 2);
      expect(new Date().getTime()).toBeGreaterThanOrEqual(start + scaledElapsed);
      expect(before instanceof Date).toBe(true);
    } finally {
      restore();
    }
    expect(Date.now).toBe(wallClock.now);
    expect(setTimeout).toBe(wallClock.setTimeout);
  });

  it('leaves an outer scaling in place when a call inside it asks for one', () => {
    const restore = scaleClock(2);
    try {
      const inner = scaleClock(3);
      inner();
      expect(setTimeout).not.toBe(wallClock.setTimeout);
    } finally {
      restore();
    }
    expect(setTimeout).toBe(wallClock.setTimeout);
  });
});
