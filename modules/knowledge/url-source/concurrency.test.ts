import { describe, expect, it } from 'vitest';
import { limitConcurrency } from './concurrency.js';

describe('running conversions a few at a time', () => {
  it('never runs more than the limit at once, and runs every task in the order given', async () => {
    const limit = limitConcurrency(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const task = (n: number) => async () => {
      started.push(n);
      running++;
      most = Math.max(most, running);
      await new Promise((done) => setTimeout(done, 5));
      running--;
      if (n === 2) throw new Error('two failed');
      return n;
    };
    const results = await Promise.allSettled([1, 2, 3, 4, 5].map((n) => limit(task(n))));
    expect(most).toBe(2);
    expect(started).toEqual([1, 2, 3, 4, 5]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : 'failed'))).toEqual([1, 'failed', 3, 4, 5]);
  });
});
