import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE_MS, maxAttempts, retryDelayMs } from './retry-schedule.js';

describe('the retry schedule', () => {
  it('grows exponentially, is capped at 10 h and spans about a day over 9 attempts', () => {
    const total = DEFAULT_RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0);
    expect(maxAttempts()).toBe(9);
    expect(total / 3_600_000).toBeGreaterThan(20);
    expect(total / 3_600_000).toBeLessThan(28);
    for (let i = 1; i < DEFAULT_RETRY_SCHEDULE_MS.length; i++) {
      expect(DEFAULT_RETRY_SCHEDULE_MS[i]!).toBeGreaterThanOrEqual(DEFAULT_RETRY_SCHEDULE_MS[i - 1]!);
      expect(DEFAULT_RETRY_SCHEDULE_MS[i]!).toBeLessThanOrEqual(10 * 3_600_000);
    }
  });

  it('spreads each wait within ±20 % and gives up after the last retry', () => {
    expect(retryDelayMs(1, [1000], 0.2, () => 0)).toBe(800);
    expect(retryDelayMs(1, [1000], 0.2, () => 0.5)).toBe(1000);
    expect(retryDelayMs(1, [1000], 0.2, () => 0.999999)).toBe(1200);
    expect(retryDelayMs(2, [1000], 0.2)).toBeNull();
  });
});
