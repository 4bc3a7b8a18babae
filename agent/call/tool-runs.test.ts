import { voice } from '@livekit/agents';
import { describe, expect, it } from 'vitest';
import { FakeSession } from './testing/fake-session.js';
import { CANCELLED_OUTPUT, ToolRunCancelled, ToolRuns } from './tool-runs.js';

// The tool calls of a call while they run, on a session emitter: messages only while the caller is silent, the busy
// state idle prompts read, and cancellation by words that take the turn (not by acknowledgements).

class InterruptibleSession extends FakeSession {
  interrupts = 0;
  interrupt(): void {
    this.interrupts++;
  }
}

const messages = { on_start: 'One moment.', on_slow: 'Still looking.', slow_after_ms: 30, on_failure: 'That did not work.' };

function setup(options: { minInterruptionWords?: number; interruptions?: boolean } = {}) {
  const session = new InterruptibleSession();
  const runs = new ToolRuns({ minInterruptionWords: options.minInterruptionWords ?? 2, interruptions: options.interruptions ?? true });
  const stop = runs.attach(session);
  const heard = (transcript: string, isFinal = false) =>
    session.send(voice.AgentSessionEventTypes.UserInputTranscribed, {
      type: 'user_input_transcribed',
      transcript,
      isFinal,
      itemId: null,
      speakerId: null,
      createdAt: Date.now(),
      language: null,
    });
  return { session, runs, stop, heard };
}

/** Work that settles when its signal aborts, or after `ms`. */
const waitFor = (ms: number) => (signal: AbortSignal) =>
  new Promise<{ value: string; failed: boolean }>((resolve) => {
    const timer = setTimeout(() => resolve({ value: 'done', failed: false }), ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve({ value: 'aborted', failed: true });
    });
  });

const call = (id: string, interruptible = true) => ({ id, name: 'lookup', args: {}, interruptible });

describe('ToolRuns', () => {
  it('speaks the start and slow messages, is busy while the call runs, and not after', async () => {
    const { session, runs } = setup();
    const running = runs.run(call('a'), messages, waitFor(80));
    expect(runs.busy).toBe(true);
    expect(await running).toBe('done');
    expect(session.said.map((s) => s.text)).toEqual(['One moment.', 'Still looking.']);
    expect(runs.busy).toBe(false);
  });

  it('speaks the failure message when the call fails, and no message over a caller who is speaking', async () => {
    const { session, runs } = setup();
    await runs.run(call('a'), messages, async () => ({ value: 'x', failed: true }));
    expect(session.said.map((s) => s.text)).toEqual(['One moment.', 'That did not work.']);
    session.said.length = 0;
    session.userState = 'speaking';
    await runs.run(call('b'), messages, waitFor(60));
    expect(session.said).toEqual([]);
  });

  it('is not cancelled by acknowledgements, and is cancelled once the caller has said enough other words', async () => {
    const { session, runs, heard } = setup({ minInterruptionWords: 2 });
    const running = runs.run(call('a'), null, waitFor(5_000));
    heard('mm-hmm okay', true);
    heard('wait');
    expect(runs.busy).toBe(true);
    heard('wait actually');
    await expect(running).rejects.toBeInstanceOf(ToolRunCancelled);
    await expect(running).rejects.toThrow(CANCELLED_OUTPUT);
    expect(session.interrupts).toBe(1);
    expect(runs.detail('a')).toEqual({ cancelled: true, duration_ms: expect.any(Number) });
    expect(runs.detail('other')).toBeUndefined();
  });

  it('lets a call of a reply that allows no interruption, or a call with interruptions off, run to its end', async () => {
    const first = setup();
    const uninterruptible = first.runs.run(call('a', false), null, waitFor(50));
    first.heard('no stop that please', true);
    expect(await uninterruptible).toBe('done');
    expect(first.session.interrupts).toBe(0);

    const second = setup({ interruptions: false });
    const running = second.runs.run(call('b'), null, waitFor(50));
    second.heard('no stop that please', true);
    expect(await running).toBe('done');
  });

  it('counts only words heard since the calls began, and stops listening when detached', async () => {
    const { runs, heard, stop, session } = setup({ minInterruptionWords: 2 });
    heard('book an appointment', true);
    const running = runs.run(call('a'), null, waitFor(50));
    heard('please');
    expect(await running).toBe('done');
    stop();
    expect(session.listening()).toBe(0);
  });
});
