import { voice } from '@livekit/agents';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_DETECTOR } from '../../modules/campaigns/machine-detector.js';
import { watchVoiceForMachine } from './machine-watch.js';
import { FakeSession } from './testing/fake-session.js';
import { AudioFrame } from '@livekit/rtc-node';

// The detector on a session's voice-activity events, on a fake clock.

const UserStateChanged = voice.AgentSessionEventTypes.UserStateChanged;
const S = { ...DEFAULT_DETECTOR, machineSpeechMs: 2_200, pauseMs: 900, silenceTimeoutMs: 5_000, greetingEndMs: 2_000, useWords: false };
const WORDS = { ...S, useWords: true, longSpeechMs: 4_200, wordWaitMs: 500 };

let session: FakeSession;
let events: string[];
// The callee's frames as a transport hands them to the call.
const frameListeners = new Set<(frame: AudioFrame) => void>();
const audio = {
  onFrame(listener: (frame: AudioFrame) => void) {
    frameListeners.add(listener);
    return () => void frameListeners.delete(listener);
  },
  push: (frame: AudioFrame) => frameListeners.forEach((listener) => listener(frame)),
};
beforeEach(() => {
  vi.useFakeTimers();
  session = new FakeSession();
  frameListeners.clear();
  events = [];
});

const RATE = 8_000;
/** The callee's line for `ms`, in 20 ms frames as a transport hands them over: a tone at `hz`, or quiet. */
const line = (ms: number, hz?: number) => {
  for (let t = 0; t < ms; t += 20) {
    const samples = Int16Array.from({ length: RATE / 50 }, (_, i) =>
      hz ? Math.round(8_000 * Math.sin((2 * Math.PI * hz * ((t * RATE) / 1000 + i)) / RATE)) : 0,
    );
    // A frame reaches the call once it has been heard whole.
    vi.advanceTimersByTime(20);
    audio.push(new AudioFrame(samples, RATE, 1, samples.length));
  }
};
afterEach(() => vi.useRealTimers());

const speaks = (ms: number) => {
  session.send(UserStateChanged, voice.createUserStateChangedEvent('listening', 'speaking'));
  vi.advanceTimersByTime(ms);
  session.send(UserStateChanged, voice.createUserStateChangedEvent('speaking', 'listening'));
};
const watch = (settings = S) =>
  watchVoiceForMachine(
    session,
    { onVerdict: (v) => events.push(`${v}@${Date.now() - start}`), onGreetingEnd: (by) => events.push(`end-${by}@${Date.now() - start}`) },
    settings,
    Date.now,
    audio,
  );
const hears = (transcript: string, isFinal = false) =>
  session.send(voice.AgentSessionEventTypes.UserInputTranscribed, {
    type: 'user_input_transcribed',
    transcript,
    isFinal,
    itemId: null,
    speakerId: null,
    createdAt: Date.now(),
    language: null,
  });
let start = 0;

describe('the machine watch on a live session', () => {
  it('calls a short hello a person once the pause after it is long enough, and listens for a beep only until stopped', () => {
    start = Date.now();
    const stop = watch();
    vi.advanceTimersByTime(500);
    speaks(600);
    vi.advanceTimersByTime(1_000);
    expect(events).toEqual(['human@2000']);
    stop();
    expect(session.listening()).toBe(0);
    expect(frameListeners.size).toBe(0);
  });

  it('calls a long greeting a machine while it speaks, then reports its end after the quiet that follows', () => {
    start = Date.now();
    watch();
    vi.advanceTimersByTime(300);
    speaks(4_000);
    expect(events).toEqual(['machine@2500']);
    vi.advanceTimersByTime(2_100);
    expect(events).toEqual(['machine@2500', 'end-silence@6300']);
  });

  it('calls silence unknown after the timeout', () => {
    start = Date.now();
    watch();
    vi.advanceTimersByTime(5_100);
    expect(events).toEqual(['unknown@5000']);
  });

  it("calls a machine on the recogniser's interim words, while the greeting is still playing", () => {
    start = Date.now();
    watch(WORDS);
    vi.advanceTimersByTime(300);
    session.send(UserStateChanged, voice.createUserStateChangedEvent('listening', 'speaking'));
    vi.advanceTimersByTime(1_200);
    hears("hi you've reached");
    expect(events).toEqual(['machine@1500']);
    vi.advanceTimersByTime(2_000);
    session.send(UserStateChanged, voice.createUserStateChangedEvent('speaking', 'listening'));
    vi.advanceTimersByTime(2_100);
    expect(events).toEqual(['machine@1500', 'end-silence@5500']);
    expect(session.listening()).toBe(0);
  });

  it('calls a long business greeting a person once it stops and waits, when no machine phrase was heard', () => {
    start = Date.now();
    watch(WORDS);
    vi.advanceTimersByTime(300);
    session.send(UserStateChanged, voice.createUserStateChangedEvent('listening', 'speaking'));
    vi.advanceTimersByTime(1_500);
    hears('good morning acme dental');
    vi.advanceTimersByTime(1_500);
    session.send(UserStateChanged, voice.createUserStateChangedEvent('speaking', 'listening'));
    vi.advanceTimersByTime(400);
    hears('good morning acme dental how can I help you', true);
    vi.advanceTimersByTime(1_100);
    expect(events).toEqual(['human@4700']);
  });

  it("waits for a lagging recogniser's final words after a long greeting, and hears the machine's phrase in them", () => {
    start = Date.now();
    watch(WORDS);
    vi.advanceTimersByTime(300);
    speaks(3_000);
    vi.advanceTimersByTime(2_500);
    // 2,500 ms of quiet after three seconds of speech, and the recogniser has said nothing final yet: no verdict.
    expect(events).toEqual([]);
    hears('thanks for calling please leave a message', true);
    // The greeting has been quiet for 2 s already: the message may start at once.
    expect(events).toEqual(['machine@5800', 'end-silence@5800']);
  });

  it('turns a person verdict into a machine on a beep after a short greeting, and ends the greeting just after the beep', () => {
    start = Date.now();
    watch(WORDS);
    line(300);
    session.send(UserStateChanged, voice.createUserStateChangedEvent('listening', 'speaking'));
    line(1_000);
    session.send(UserStateChanged, voice.createUserStateChangedEvent('speaking', 'listening'));
    line(1_000);
    expect(events).toEqual(['human@2200']);
    line(400, 1_000);
    line(600);
    // Known as a beep 160 ms after it started at 2,300; the message may start 300 ms after it ended at 2,700.
    expect(events).toEqual(['human@2200', 'machine@2460', 'end-beep@3000']);
    expect(session.listening()).toBe(0);
    expect(frameListeners.size).toBe(0);
  });
});
