import { initializeLogger, voice } from '@livekit/agents';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CallNotRunnableError } from '../../modules/calls/store.js';
import { CallEnding, DEFAULT_MAX_CALL_DURATION_MS, MISSING_CREDENTIALS, startFailure, startSteps, watchForEnd } from './ending.js';
import { MissingCredentialsError } from './session-config.js';
import { FakeSession, llmError } from './testing/fake-session.js';

// How a call ends, reason by reason, on a session that is only its events.

const Close = voice.AgentSessionEventTypes.Close;
const ErrorEvent = voice.AgentSessionEventTypes.Error;

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** The framework logger's lines at warn and above while `fn` runs. */
function loggedBy(fn: () => void): LogLine[] {
  const lines: string[] = [];
  initializeLogger({ pretty: false, level: 'warn' });
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
    return true;
  });
  try {
    fn();
  } finally {
    write.mockRestore();
    initializeLogger({ pretty: false, level: 'silent' });
  }
  return lines
    .flatMap((l) => l.split('\n'))
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LogLine);
}

/** The ending, if the call has ended by now. */
async function endingOf(ending: CallEnding) {
  return Promise.race([ending.settled, Promise.resolve(undefined)]);
}

let session: FakeSession;
let ending: CallEnding;

beforeEach(() => {
  initializeLogger({ pretty: false, level: 'silent' });
  session = new FakeSession();
  ending = new CallEnding();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('the ending of a running call', () => {
  it('completes with session_closed when the session closes by itself', async () => {
    watchForEnd(session, ending);
    session.send(Close, voice.createCloseEvent(voice.CloseReason.USER_INITIATED));
    expect(await ending.settled).toEqual({ status: 'completed', reason: 'session_closed' });
  });

  it("fails with the vendor error's type, and an apology, when the session closes on an error", async () => {
    watchForEnd(session, ending);
    session.send(Close, voice.createCloseEvent(voice.CloseReason.ERROR, llmError(false)));
    expect(await ending.settled).toEqual({ status: 'failed', reason: 'llm_error', apology: true });
  });

  it('completes with customer_hangup when the caller hangs up', async () => {
    const hangup = new AbortController();
    watchForEnd(session, ending, { signal: hangup.signal });
    expect(await endingOf(ending)).toBeUndefined();
    hangup.abort();
    expect(await ending.settled).toEqual({ status: 'completed', reason: 'customer_hangup' });
  });

  it("takes the worker's reason when it aborts the call with one", async () => {
    const shutdown = new AbortController();
    watchForEnd(session, ending, { signal: shutdown.signal });
    shutdown.abort('worker_shutdown');
    expect(await ending.settled).toEqual({ status: 'completed', reason: 'worker_shutdown' });
  });

  it('ends at once when the caller hung up before the session was watched', async () => {
    watchForEnd(session, ending, { signal: AbortSignal.abort() });
    expect(await endingOf(ending)).toEqual({ status: 'completed', reason: 'customer_hangup' });
  });

  it('completes with max_duration when the call runs past its longest duration, an hour unless told', async () => {
    vi.useFakeTimers();
    watchForEnd(session, ending);
    vi.advanceTimersByTime(DEFAULT_MAX_CALL_DURATION_MS - 1);
    expect(ending.ended).toBe(false);
    vi.advanceTimersByTime(1);
    expect(await ending.settled).toEqual({ status: 'completed', reason: 'max_duration' });

    const short = new CallEnding();
    watchForEnd(new FakeSession(), short, { maxDurationMs: 5_000 });
    vi.advanceTimersByTime(5_000);
    expect(await short.settled).toMatchObject({ reason: 'max_duration' });
  });

  it('keeps the first reason: what comes after it changes nothing', async () => {
    const hangup = new AbortController();
    watchForEnd(session, ending, { signal: hangup.signal });
    hangup.abort();
    session.send(Close, voice.createCloseEvent(voice.CloseReason.ERROR, llmError(false)));
    ending.end({ status: 'failed', reason: 'configuration_error' });
    expect(await ending.settled).toEqual({ status: 'completed', reason: 'customer_hangup' });
  });

  it('once stopped, leaves no listener on the session or the signal and no timer behind', async () => {
    vi.useFakeTimers();
    const hangup = new AbortController();
    const stop = watchForEnd(session, ending, { signal: hangup.signal });
    expect(session.listening()).toBe(2);
    expect(vi.getTimerCount()).toBe(1);
    stop();
    expect(session.listening()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    hangup.abort();
    expect(ending.ended).toBe(false);
  });

  it("logs a vendor's unrecoverable error by its type, and passes over a recoverable one", () => {
    watchForEnd(session, ending, { logFields: { callId: 7 } });
    const logs = loggedBy(() => {
      session.send(ErrorEvent, voice.createErrorEvent(llmError(true)));
      session.send(ErrorEvent, voice.createErrorEvent(llmError(false)));
    });
    expect(logs).toEqual([expect.objectContaining({ msg: 'vendor error in call', callId: 7, type: 'llm_error' })]);
    expect(ending.ended).toBe(false);
  });
});

describe('the ending of a call that could not start', () => {
  it('fails with missing_credentials, and logs the unset variables by name', () => {
    const error = new MissingCredentialsError(['stt'], [
      { stage: 'stt', vendor: 'deepgram', variable: 'DEEPGRAM_API_KEY', field: 'stt_settings.provider' },
    ] as never);
    let failure: ReturnType<typeof startFailure> | undefined;
    const logs = loggedBy(() => (failure = startFailure(error, { callId: 7 })));
    expect(failure).toEqual({ status: 'failed', reason: MISSING_CREDENTIALS, apology: true });
    expect(logs).toEqual([
      expect.objectContaining({
        msg: 'call cannot start: a vendor credential is not set',
        callId: 7,
        stages: ['stt'],
        variables: ['DEEPGRAM_API_KEY'],
        fields: ['stt_settings.provider'],
      }),
    ]);
  });

  it('fails with the reason a call cannot run for, in snake case', () => {
    expect(startFailure(new CallNotRunnableError('assistant not found'))).toEqual({ status: 'failed', reason: 'assistant_not_found', apology: true });
  });

  it('fails with configuration_error for anything else, and logs the error with its stack', () => {
    let failure: ReturnType<typeof startFailure> | undefined;
    const logs = loggedBy(() => (failure = startFailure(new TypeError('no such provider'), { callId: 7 })));
    expect(failure).toEqual({ status: 'failed', reason: 'configuration_error', apology: true });
    expect(logs).toEqual([
      expect.objectContaining({
        msg: 'call could not start',
        callId: 7,
        err: expect.objectContaining({ message: 'no such provider', stack: expect.stringContaining('TypeError') }),
      }),
    ]);
  });

  it('runs the steps of the start in order, and after the first that throws runs none and ends the call with its reason', async () => {
    const step = startSteps(ending);
    const ran: string[] = [];
    expect(await step(() => (ran.push('settings'), 'settings'))).toBe('settings');
    expect(await step(async () => (ran.push('texts'), 'texts'))).toBe('texts');
    expect(
      await step(() => {
        ran.push('session');
        throw new CallNotRunnableError('assistant not found');
      }),
    ).toBeUndefined();
    expect(await step(() => ran.push('start'))).toBeUndefined();
    expect(ran).toEqual(['settings', 'texts', 'session']);
    expect(await ending.settled).toEqual({ status: 'failed', reason: 'assistant_not_found', apology: true });
  });
});
