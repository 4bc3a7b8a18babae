import { describe, expect, it } from 'vitest';
import { decide, greetingEnd } from './machine-detector.js';

const S = { machineSpeechMs: 2_600, pauseMs: 900, silenceTimeoutMs: 5_000, greetingEndMs: 1_200 };

describe('telling a person from a machine', () => {
  it('hears a person in a short hello followed by a pause, decided when the pause is long enough', () => {
    const hello = [{ start: 400, end: 1000 }];
    expect(decide(hello, 1500, S)).toBeNull();
    expect(decide(hello, 1900, S)).toEqual({ verdict: 'human', at: 1900 });
  });

  it('hears a machine once the opening speech runs on, across short pauses, at the instant it reached the threshold', () => {
    const greeting = [{ start: 300, end: 1500 }, { start: 1900, end: 2800 }, { start: 3100 }];
    expect(decide(greeting.slice(0, 2), 2900, S)).toBeNull();
    // 1,200 + 900 ms before the third segment; 500 ms more reach 2,600.
    expect(decide(greeting, 3700, S)).toEqual({ verdict: 'machine', at: 3600 });
  });

  it('does not count speech after a long pause as the opening, and calls silence unknown after the timeout', () => {
    expect(decide([{ start: 200, end: 800 }, { start: 2500, end: 6000 }], 6000, S)).toEqual({ verdict: 'human', at: 1700 });
    expect(decide([], 4999, S)).toBeNull();
    expect(decide([], 5000, S)).toEqual({ verdict: 'unknown', at: 5000 });
  });

  it("knows a machine's greeting has ended after enough quiet following its last speech", () => {
    expect(greetingEnd([{ start: 300, end: 6000 }], 6500, S)).toBeNull();
    expect(greetingEnd([{ start: 300, end: 6000 }], 7300, S)).toBe(7200);
    expect(greetingEnd([{ start: 300 }], 9000, S)).toBeNull();
  });
});
