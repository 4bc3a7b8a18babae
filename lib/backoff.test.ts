import { describe, expect, it } from 'vitest';
import { backoffMs, growingSchedule } from './backoff.js';

describe('the wait before trying again', () => {
  it('reads the schedule by failures, and gives up past its end unless told to repeat the last wait', () => {
    const schedule = [100, 500, 1_000];
    expect([1, 2, 3, 4].map((n) => backoffMs(schedule, n))).toEqual([100, 500, 1_000, null]);
    expect(backoffMs(schedule, 9, { afterLast: 'repeat_last' })).toBe(1_000);
    expect(backoffMs([], 1)).toBeNull();
  });

  it('spreads each wait within ±jitter, never below zero', () => {
    expect(backoffMs([1_000], 1, { jitterRatio: 0.2, random: () => 0 })).toBe(800);
    expect(backoffMs([1_000], 1, { jitterRatio: 0.2, random: () => 1 })).toBe(1_200);
    expect(backoffMs([1_000], 1, { jitterRatio: 2, random: () => 0 })).toBe(0);
  });

  it('grows a schedule by its factor up to its cap', () => {
    expect(growingSchedule(5_000, 2, 300_000, 8)).toEqual([5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
  });
});
