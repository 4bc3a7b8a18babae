import { voice } from '@livekit/agents';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { watchVoiceForMachine } from './machine-watch.js';
import { FakeSession } from './testing/fake-session.js';

// The detector on a session's voice-activity events, on a fake clock.

const UserStateChanged = voice.AgentSessionEventTypes.UserStateChanged;
const S = { machineSpeechMs: 2_200, pauseMs: 900, silenceTimeoutMs: 5_000, greetingEndMs: 2_000 };

let session: FakeSession;
let events: string[];
beforeEach(() => {
  vi.useFakeTimers();
  session = new FakeSession();
  events = [];
});
afterEach(() => vi.useRealTimers());

const speaks = (ms: number) => {
  session.send(UserStateChanged, voice.createUserStateChangedEvent('listening', 'speaking'));
  vi.advanceTimersByTime(ms);
  session.send(UserStateChanged, voice.createUserStateChangedEvent('speaking', 'listening'));
};
const watch = () => watchVoiceForMachine(session, { onVerdict: (v) => events.push(`${v}@${Date.now() - start}`), onGreetingEnd: () => events.push(`end@${Date.now() - start}`) }, S);
let start = 0;

describe('the machine watch on a live session', () => {
  it('calls a short hello a person once the pause after it is long enough, and stops listening', () => {
    start = Date.now();
    const stop = watch();
    vi.advanceTimersByTime(500);
    speaks(600);
    vi.advanceTimersByTime(1_000);
    expect(events).toEqual(['human@2000']);
    expect(session.listening()).toBe(0);
    stop();
  });

  it('calls a long greeting a machine while it speaks, then reports its end after the quiet that follows', () => {
    start = Date.now();
    watch();
    vi.advanceTimersByTime(300);
    speaks(4_000);
    expect(events).toEqual(['machine@2500']);
    vi.advanceTimersByTime(2_100);
    expect(events).toEqual(['machine@2500', 'end@6300']);
  });

  it('calls silence unknown after the timeout', () => {
    start = Date.now();
    watch();
    vi.advanceTimersByTime(5_100);
    expect(events).toEqual(['unknown@5000']);
  });
});
