import { describe, expect, it } from 'vitest';
import { decide, DEFAULT_DETECTOR, greetingEnd } from './machine-detector.js';
import { machinePhrase } from './machine-phrases.js';

const TIMING = { ...DEFAULT_DETECTOR, machineSpeechMs: 2_600, pauseMs: 900, greetingEndMs: 1_200, useWords: false };
const WORDS = { ...DEFAULT_DETECTOR, machineSpeechMs: 2_200, pauseMs: 700, wordWaitMs: 500, longSpeechMs: 4_200 };

describe('telling a person from a machine by timing alone', () => {
  it('hears a person in a short hello followed by a pause, decided when the pause is long enough', () => {
    const hello = [{ start: 400, end: 1000 }];
    expect(decide({ segments: hello }, 1500, TIMING)).toBeNull();
    expect(decide({ segments: hello }, 1900, TIMING)).toEqual({ verdict: 'human', at: 1900 });
  });

  it('hears a machine once the opening speech runs on, across short pauses, at the instant it reached the threshold', () => {
    const greeting = [{ start: 300, end: 1500 }, { start: 1900, end: 2800 }, { start: 3100 }];
    expect(decide({ segments: greeting.slice(0, 2) }, 2900, TIMING)).toBeNull();
    // 1,200 + 900 ms before the third segment; 500 ms more reach 2,600.
    expect(decide({ segments: greeting }, 3700, TIMING)).toEqual({ verdict: 'machine', at: 3600 });
  });

  it('does not count speech after a long pause as the opening, and calls silence unknown after the timeout', () => {
    expect(
      decide(
        {
          segments: [
            { start: 200, end: 800 },
            { start: 2500, end: 6000 },
          ],
        },
        6000,
        TIMING,
      ),
    ).toEqual({ verdict: 'human', at: 1700 });
    expect(decide({ segments: [] }, 4999, TIMING)).toBeNull();
    expect(decide({ segments: [] }, 5000, TIMING)).toEqual({ verdict: 'unknown', at: 5000 });
  });

  it('ignores what the recogniser heard when words are not used', () => {
    expect(decide({ segments: [{ start: 400, end: 1000 }], heard: [{ at: 1200, text: 'leave a message' }] }, 1900, TIMING)).toEqual({
      verdict: 'human',
      at: 1900,
    });
  });
});

describe('telling a person from a machine by timing and words', () => {
  it("hears a machine as soon as the recogniser hears a machine's phrase, before timing could tell", () => {
    const hello = [{ start: 300, end: 1500 }];
    expect(
      decide(
        {
          segments: hello,
          heard: [
            { at: 1100, text: "Hi, you've" },
            { at: 1800, text: "Hi, you've reached Sam" },
          ],
        },
        1900,
        WORDS,
      ),
    ).toEqual({ verdict: 'machine', at: 1800 });
  });

  it('hears a business answering with a long greeting as a person once it stops and waits, after a longer wait for the last words', () => {
    const greeting = [{ start: 500, end: 3500 }];
    const heard = [
      { at: 2000, text: 'good morning acme' },
      { at: 3900, text: 'good morning acme dental how can I help you', final: true },
    ];
    expect(decide({ segments: greeting, heard }, 3500, WORDS)).toBeNull();
    // 700 ms of quiet is enough after a short hello, not after three seconds of speech: 500 ms more for the words.
    expect(decide({ segments: greeting, heard }, 4200, WORDS)).toBeNull();
    expect(decide({ segments: greeting, heard }, 4700, WORDS)).toEqual({ verdict: 'human', at: 4700 });
  });

  it('hears a machine in a long greeting whose words came late, when they come before the wait ends', () => {
    const greeting = [{ start: 500, end: 3500 }];
    expect(decide({ segments: greeting, heard: [{ at: 4300, text: 'sorry I missed you please leave a message' }] }, 4700, WORDS)).toEqual({
      verdict: 'machine',
      at: 4300,
    });
  });

  it("holds a long opening's person verdict until the recogniser's final words about it, which may name a machine", () => {
    // A loaded machine's recogniser, seconds behind: at 4,700 the words about the end of the opening are not in yet.
    const greeting = [{ start: 500, end: 3500 }];
    const early = [{ at: 2000, text: 'hi' }];
    expect(decide({ segments: greeting, heard: early }, 4700, WORDS)).toBeNull();
    expect(decide({ segments: greeting, heard: [...early, { at: 5600, text: 'hi please leave a message', final: true }] }, 5600, WORDS)).toEqual({
      verdict: 'machine',
      at: 5600,
    });
    expect(decide({ segments: greeting, heard: [...early, { at: 5600, text: 'hi how can I help you', final: true }] }, 5600, WORDS)).toEqual({
      verdict: 'human',
      at: 5600,
    });
    // A recogniser that never reports a final: a person all the same, once the longest wait has passed.
    expect(decide({ segments: greeting, heard: early }, 7199, WORDS)).toBeNull();
    expect(decide({ segments: greeting, heard: early }, 7200, WORDS)).toEqual({ verdict: 'human', at: 7200 });
  });

  it('hears a machine in speech that runs on past what a person says, with no phrase heard', () => {
    expect(decide({ segments: [{ start: 500 }] }, 4800, WORDS)).toEqual({ verdict: 'machine', at: 4700 });
  });

  it('hears a machine when a long opening resumes after a pause a person waiting for an answer would not leave', () => {
    const greeting = [{ start: 500, end: 3000 }, { start: 3900 }];
    expect(decide({ segments: greeting }, 4000, WORDS)).toEqual({ verdict: 'machine', at: 3900 });
  });

  it('still hears a short hello as a person after the short pause', () => {
    expect(decide({ segments: [{ start: 400, end: 1000 }], heard: [{ at: 1300, text: 'hello' }] }, 1700, WORDS)).toEqual({ verdict: 'human', at: 1700 });
  });
});

describe('telling a machine by its beep', () => {
  it('hears a machine as soon as a beep is known, even after a short greeting that timing alone would take for a person', () => {
    const observed = { segments: [{ start: 400, end: 1400 }], beeps: [{ at: 1900, end: 2200 }] };
    expect(decide(observed, 2000, WORDS)).toEqual({ verdict: 'machine', at: 1900 });
  });

  it('ends the greeting just after the beep, not after seconds of quiet, and not while the beep still sounds', () => {
    const settings = { ...WORDS, afterBeepMs: 300, greetingEndMs: 2_000 };
    expect(greetingEnd({ segments: [{ start: 400, end: 3000 }], beeps: [{ at: 3500 }] }, 5_200, settings)).toBeNull();
    expect(greetingEnd({ segments: [{ start: 400, end: 3000 }], beeps: [{ at: 3500, end: 3800 }] }, 4_100, settings)).toEqual({ at: 4_100, by: 'beep' });
    expect(greetingEnd({ segments: [{ start: 400, end: 3000 }] }, 5_000, settings)).toEqual({ at: 5_000, by: 'silence' });
  });

  it('waits out the moment after a beep that has just ended, though the quiet since the last words is long enough', () => {
    const settings = { ...WORDS, afterBeepMs: 300, greetingEndMs: 2_000 };
    // Words end at 1,300; the beep sounds from 2,700 to 3,050: at 3,320 the silence rule alone would have ended it.
    const observed = { segments: [{ start: 500, end: 1300 }], beeps: [{ at: 2_860, end: 3_050 }] };
    expect(greetingEnd(observed, 3_320, settings)).toBeNull();
    expect(greetingEnd(observed, 3_360, settings)).toEqual({ at: 3_350, by: 'beep' });
  });
});

describe("a machine's phrases", () => {
  it('are found in voicemail greetings, menus and announcements, whatever their case and punctuation', () => {
    for (const text of [
      'Please leave a message after the tone.',
      "You've reached the voicemail of Dave",
      'For billing, PRESS TWO.',
      'The number you have dialed is not in service',
      "I can't take your call right now",
      'the mailbox is full',
    ]) {
      expect(machinePhrase(text), text).not.toBeNull();
    }
  });

  it('are not found in what people say when they pick up', () => {
    for (const text of [
      'Hello?',
      'Hi, this is Sam.',
      'Good morning, Acme Dental, how can I help you?',
      "Hello, thanks for calling Rosa's Bakery, this is Tom.",
      'Who is calling, please?',
      'Speaking.',
      'Yes, what is it?',
    ]) {
      expect(machinePhrase(text), text).toBeNull();
    }
  });
});

describe("a machine's greeting ending", () => {
  it('is known after enough quiet following its last speech', () => {
    expect(greetingEnd({ segments: [{ start: 300, end: 6000 }] }, 6500, TIMING)).toBeNull();
    expect(greetingEnd({ segments: [{ start: 300, end: 6000 }] }, 7300, TIMING)).toEqual({ at: 7200, by: 'silence' });
    expect(greetingEnd({ segments: [{ start: 300 }] }, 9000, TIMING)).toBeNull();
  });
});
