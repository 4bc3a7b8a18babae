import { describe, expect, it } from 'vitest';
import { LatenessWindow } from './lateness-window.js';

// The p95 of how late frames left, over the last 10 s, from counts per lateness band and second.

describe('the lateness window', () => {
  it('gives the band 95 % of the frames were within, the late tail included once it passes 5 %', () => {
    let now = 0;
    const window = new LatenessWindow(10_000, () => now);
    for (let i = 0; i < 100; i++) window.record(2);
    expect(window.p95()).toEqual({ ms: 5, frames: 100 });
    for (let i = 0; i < 10; i++) window.record(50);
    expect(window.p95()).toEqual({ ms: 60, frames: 110 });
    now += 500;
    window.record(500);
    expect(window.p95().frames).toBe(111);
  });

  it('forgets what is older than the window, and says so when no audio played', () => {
    let now = 0;
    const window = new LatenessWindow(10_000, () => now);
    expect(window.p95()).toEqual({ ms: 0, frames: 0 });
    for (let i = 0; i < 20; i++) window.record(80);
    now = 5_000;
    for (let i = 0; i < 20; i++) window.record(1);
    expect(window.p95().ms).toBe(100);
    // The late second is out of the window; the quiet one is still in.
    now = 11_000;
    expect(window.p95()).toEqual({ ms: 5, frames: 20 });
    now = 30_000;
    expect(window.p95()).toEqual({ ms: 0, frames: 0 });
  });
});
