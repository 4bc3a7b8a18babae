import { voice } from '@livekit/agents';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_IDLE_MESSAGE } from '../../modules/assistants/settings.js';
import { CallEnding, FINAL_PLAYOUT_TIMEOUT_MS } from './ending.js';
import { DEFAULT_MAX_IDLE_MESSAGES, IDLE_GOODBYE, idlePromptsOf, PENDING_TURN_MAX_MS, startIdlePrompts } from './idle-prompts.js';
import { FakeSession } from './testing/fake-session.js';

// Idle prompts on a session that is only its states and events, on a fake clock.

const UserStateChanged = voice.AgentSessionEventTypes.UserStateChanged;
const AgentStateChanged = voice.AgentSessionEventTypes.AgentStateChanged;

let session: FakeSession;
let ending: CallEnding;

beforeEach(() => {
  vi.useFakeTimers();
  session = new FakeSession();
  ending = new CallEnding();
});

afterEach(() => {
  vi.useRealTimers();
});

const texts = () => session.said.map((s) => s.text);

/** The caller says something, and the assistant takes it up (thinks) without a word to say back. */
function userSpeaks(): void {
  callerSpeaks();
  session.send(AgentStateChanged, voice.createAgentStateChangedEvent('listening', 'thinking'));
  session.send(AgentStateChanged, voice.createAgentStateChangedEvent('thinking', 'listening'));
}

/** The caller says something; what becomes of it is up to the test. */
function callerSpeaks(): void {
  session.userState = 'speaking';
  session.send(UserStateChanged, voice.createUserStateChangedEvent('listening', 'speaking'));
  session.userState = 'listening';
  session.send(UserStateChanged, voice.createUserStateChangedEvent('speaking', 'listening'));
}

describe('idle prompts', () => {
  it('asks after idle_timeout of silence, up to the last prompt, then says goodbye and ends the call with idle_timeout once it has played', async () => {
    startIdlePrompts(session, ending, { idleMs: 1_000, maxPrompts: 2, message: 'Are you there?' });
    await vi.advanceTimersByTimeAsync(900);
    expect(texts()).toEqual([]);
    await vi.advanceTimersByTimeAsync(200);
    expect(session.said).toEqual([{ text: 'Are you there?', allowInterruptions: true }]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(texts()).toEqual(['Are you there?', 'Are you there?']);
    expect(ending.ended).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(session.said.at(-1)).toEqual({ text: IDLE_GOODBYE, allowInterruptions: false });
    expect(await ending.settled).toEqual({ status: 'completed', reason: 'idle_timeout' });
  });

  it('waits for the goodbye to play out before ending the call', async () => {
    let played!: () => void;
    session.playout = () => new Promise((resolve) => (played = resolve));
    startIdlePrompts(session, ending, { idleMs: 1_000, maxPrompts: 0, message: 'Are you there?' });
    await vi.advanceTimersByTimeAsync(1_100);
    expect(texts()).toEqual([IDLE_GOODBYE]);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(ending.ended).toBe(false);
    played();
    expect(await ending.settled).toMatchObject({ reason: 'idle_timeout' });
  });

  it('ends the call when the goodbye has not played out within the final playout bound, and says it only once', async () => {
    session.playout = () => new Promise(() => {});
    startIdlePrompts(session, ending, { idleMs: 1_000, maxPrompts: 0, message: 'Are you there?' });
    await vi.advanceTimersByTimeAsync(1_100 + FINAL_PLAYOUT_TIMEOUT_MS - 200);
    expect(ending.ended).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    expect(await ending.settled).toMatchObject({ reason: 'idle_timeout' });
    expect(texts()).toEqual([IDLE_GOODBYE]);
  });

  it('never prompts while the assistant or the caller is speaking', async () => {
    startIdlePrompts(session, ending, { idleMs: 1_000, maxPrompts: 1, message: 'Are you there?' });
    session.agentState = 'speaking';
    await vi.advanceTimersByTimeAsync(3_000);
    session.agentState = 'listening';
    session.userState = 'speaking';
    await vi.advanceTimersByTimeAsync(3_000);
    expect(texts()).toEqual([]);
  });

  it('counts the silence from the last thing either side did', async () => {
    startIdlePrompts(session, ending, { idleMs: 1_000, maxPrompts: 1, message: 'Are you there?' });
    await vi.advanceTimersByTimeAsync(800);
    session.send(AgentStateChanged, voice.createAgentStateChangedEvent('speaking', 'listening'));
    await vi.advanceTimersByTimeAsync(800);
    expect(texts()).toEqual([]);
    userSpeaks();
    await vi.advanceTimersByTimeAsync(800);
    expect(texts()).toEqual([]);
    await vi.advanceTimersByTimeAsync(300);
    expect(texts()).toEqual(['Are you there?']);
  });

  it('waits while the caller’s words await the reply, however slow the turn, up to its bound', async () => {
    startIdlePrompts(session, ending, { idleMs: 1_000, maxPrompts: 1, message: 'Are you there?' });
    callerSpeaks();
    // The transcript and the end-of-turn decision take seconds on a starved machine: the caller is not idle meanwhile.
    await vi.advanceTimersByTimeAsync(3_000);
    expect(texts()).toEqual([]);
    session.send(AgentStateChanged, voice.createAgentStateChangedEvent('listening', 'thinking'));
    session.send(AgentStateChanged, voice.createAgentStateChangedEvent('thinking', 'listening'));
    await vi.advanceTimersByTimeAsync(1_100);
    expect(texts()).toEqual(['Are you there?']);
  });

  it('counts again once words that never became a turn have held the count for its bound', async () => {
    startIdlePrompts(session, ending, { idleMs: 1_000, maxPrompts: 1, message: 'Are you there?' });
    callerSpeaks();
    await vi.advanceTimersByTimeAsync(PENDING_TURN_MAX_MS);
    expect(texts()).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_100);
    expect(texts()).toEqual(['Are you there?']);
  });

  it('starts the count over when the caller speaks again', async () => {
    startIdlePrompts(session, ending, { idleMs: 1_000, maxPrompts: 1, message: 'Are you there?' });
    await vi.advanceTimersByTimeAsync(1_100);
    userSpeaks();
    await vi.advanceTimersByTimeAsync(1_100);
    expect(texts()).toEqual(['Are you there?', 'Are you there?']);
    await vi.advanceTimersByTimeAsync(1_100);
    expect(texts().at(-1)).toBe(IDLE_GOODBYE);
  });

  it('says nothing more once the call has ended for another reason', async () => {
    startIdlePrompts(session, ending, { idleMs: 1_000, maxPrompts: 1, message: 'Are you there?' });
    ending.end({ status: 'completed', reason: 'customer_hangup' });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(texts()).toEqual([]);
  });

  it('once stopped, says nothing and leaves no listener or timer behind', async () => {
    const stop = startIdlePrompts(session, ending, { idleMs: 1_000, maxPrompts: 1, message: 'Are you there?' });
    expect(session.listening()).toBe(2);
    stop();
    expect(session.listening()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(texts()).toEqual([]);
  });
});

describe('idle prompts from the settings', () => {
  it('are off without idle_timeout', () => {
    expect(idlePromptsOf({ idle_timeout: null, max_idle_messages: 3 }, 'Hello?')).toBeNull();
  });

  it('take idle_timeout in seconds, one prompt unless max_idle_messages says otherwise, and the default prompt for an empty one', () => {
    expect(idlePromptsOf({ idle_timeout: 7, max_idle_messages: null }, 'Hello?')).toEqual({
      idleMs: 7_000,
      maxPrompts: DEFAULT_MAX_IDLE_MESSAGES,
      message: 'Hello?',
    });
    expect(idlePromptsOf({ idle_timeout: 7, max_idle_messages: 0 }, '')).toEqual({ idleMs: 7_000, maxPrompts: 0, message: DEFAULT_IDLE_MESSAGE });
  });
});
