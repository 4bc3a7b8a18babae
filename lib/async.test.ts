import { describe, expect, it } from 'vitest';
import { delay, settledWithin, withTimeout } from './async.js';

describe('bounded waits', () => {
  it('gives the value of a promise that settles in time', async () => {
    expect(await withTimeout(Promise.resolve(7), 100)).toBe(7);
  });

  it('gives undefined for a promise that does not settle in time', async () => {
    expect(await withTimeout(new Promise(() => {}), 10)).toBeUndefined();
  });

  it('passes on a rejection that comes in time', async () => {
    await expect(withTimeout(Promise.reject(new Error('refused')), 100)).rejects.toThrow('refused');
  });

  it('says whether a promise settled, a rejection counting as settled', async () => {
    expect(await settledWithin(Promise.reject(new Error('x')), 100)).toBe(true);
    expect(await settledWithin(delay(50), 5)).toBe(false);
  });

  it('leaves no timer behind once the promise has settled', async () => {
    const before = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    await withTimeout(Promise.resolve(1), 60_000);
    await settledWithin(Promise.resolve(1), 60_000);
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBe(before);
  });
});
