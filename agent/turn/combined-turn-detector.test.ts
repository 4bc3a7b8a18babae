import { initializeLogger } from '@livekit/agents';
import { describe, expect, it } from 'vitest';
import { CombinedTurnDetector } from './combined-turn-detector.js';
import type { InferenceExecutor } from './eot-process.js';
import { TurnSignals } from './turn-signals.js';

// The default end-of-turn decision: the words first, the audio model only when they leave the turn open.

initializeLogger({ pretty: false, level: 'silent' });

/** An audio model that answers `probability` when released, counting what it was asked. */
class FakeModel implements InferenceExecutor {
  calls = 0;
  #release: Array<() => void> = [];
  #answer = () => {};
  readonly #answered = new Promise<void>((resolve) => (this.#answer = resolve));
  constructor(
    readonly probability: number,
    readonly answerAtOnce = true,
  ) {}
  async doInference(): Promise<unknown> {
    this.calls++;
    if (!this.answerAtOnce) await new Promise<void>((resolve) => this.#release.push(resolve));
    setImmediate(() => this.#answer());
    return { probability: this.probability, inferenceDurationMs: 12 };
  }
  /** Settles once an answer has been given and its promise callbacks have run. */
  get answered(): Promise<void> {
    return this.#answered;
  }
  release(): void {
    for (const resolve of this.#release.splice(0)) resolve();
  }
}

function setup(model: FakeModel, question?: string) {
  const signals = new TurnSignals({ minMs: 300, maxMs: 2500 });
  if (question) signals.assistantSaid(question);
  const stream = new CombinedTurnDetector(signals, model).stream();
  return { signals, stream };
}

describe('the combined end-of-turn decision', () => {
  it('answers a finished sentence from the words at once, without the audio model', async () => {
    const model = new FakeModel(0.1);
    const { signals, stream } = setup(model);
    signals.final('What time do you open tomorrow?');
    const event = await stream.predict().await;
    expect(event.endOfTurnProbability).toBeGreaterThan((await stream.unlikelyThreshold(undefined)) ?? 0.5);
    expect(model.calls).toBe(0);
    expect(signals.committed()).toMatchObject({ verdict: 'finished', decided_by: 'transcript', transcript: 'complete', delay_ms: 300 });
    await stream.aclose();
  });

  it('waits for the rest of a phone number read in groups, whatever the audio says', async () => {
    const model = new FakeModel(0.99);
    const { signals, stream } = setup(model);
    signals.final('my number is four one five.');
    const event = await stream.predict().await;
    expect(event.endOfTurnProbability).toBe(0);
    expect(model.calls).toBe(0);
    expect(signals.committed()).toMatchObject({
      verdict: 'unfinished',
      decided_by: 'transcript',
      transcript_rule: 'value_pending',
      value_kind: 'phone',
      delay_ms: 2500,
    });
    await stream.aclose();
  });

  it('reads a bare name after the assistant asked for an email as an address still being spelled', async () => {
    const model = new FakeModel(0.99);
    const { signals, stream } = setup(model, "What's your email address?");
    signals.final("it's john");
    expect((await stream.predict().await).endOfTurnProbability).toBe(0);
    expect(model.calls).toBe(0);
    await stream.aclose();
  });

  it("answers a whole phrase of the offline recogniser's grammar at once, though it carries no punctuation", async () => {
    const model = new FakeModel(0.01);
    const { signals, stream } = setup(model);
    signals.final('book an appointment', undefined, true);
    expect((await stream.predict().await).endOfTurnProbability).toBe(1);
    expect(model.calls).toBe(0);
    expect(signals.committed()).toMatchObject({
      verdict: 'finished',
      decided_by: 'transcript',
      transcript: 'complete',
      transcript_rule: 'phrase_complete',
      delay_ms: 300,
    });
    await stream.aclose();
  });

  it('answers a whole phrase that ends on a word which usually leads on, as the same words with a full stop would be', async () => {
    const model = new FakeModel(0.01);
    const { signals, stream } = setup(model);
    signals.final('thank you', undefined, true);
    expect((await stream.predict().await).endOfTurnProbability).toBe(1);
    expect(signals.committed()).toMatchObject({ verdict: 'finished', decided_by: 'transcript', transcript_rule: 'phrase_complete' });
    await stream.aclose();
  });

  it('still holds a whole phrase open when its words are a value being read out or trail off', async () => {
    const model = new FakeModel(0.99);
    const { signals, stream } = setup(model);
    signals.final('my number is four one five', undefined, true);
    expect((await stream.predict().await).endOfTurnProbability).toBe(0);
    expect(signals.committed()).toMatchObject({ verdict: 'unfinished', transcript_rule: 'value_pending' });
    signals.final('i would like to', undefined, true);
    expect((await stream.predict().await).endOfTurnProbability).toBe(0);
    expect(signals.committed()).toMatchObject({ verdict: 'unfinished', transcript_rule: 'continuation_word' });
    await stream.aclose();
  });

  it('asks the audio model when the words leave the turn open, and records its probability', async () => {
    const model = new FakeModel(0.12);
    const { signals, stream } = setup(model);
    signals.final("it's john");
    const event = await stream.predict().await;
    expect(model.calls).toBe(1);
    expect(event.endOfTurnProbability).toBe(0.12);
    const decision = signals.committed();
    expect(decision).toMatchObject({ verdict: 'unfinished', decided_by: 'audio_model', transcript: 'open', audio_model_probability: 0.12, delay_ms: 2500 });
    expect(decision?.audio_model_threshold).toBeGreaterThan(0.12);
    await stream.aclose();
  });

  it('lets words that arrive while the model runs settle the turn', async () => {
    const model = new FakeModel(0.01, false);
    const { signals, stream } = setup(model);
    const verdict = stream.predict();
    signals.final('Yes, that works for me.');
    const event = await verdict.await;
    expect(event.endOfTurnProbability).toBe(1);
    expect(signals.committed()).toMatchObject({ verdict: 'finished', decided_by: 'transcript' });
    model.release();
    await stream.aclose();
  });

  it("keeps the audio model's answer given before any words until the words come, and lets whole words decide", async () => {
    const model = new FakeModel(0.01);
    const { signals, stream } = setup(model);
    // The offline recogniser transcribes once the utterance has ended: the model has answered before its words exist.
    const verdict = stream.predict();
    await model.answered;
    expect(verdict.done).toBe(false);
    signals.final('book an appointment', undefined, true);
    expect((await verdict.await).endOfTurnProbability).toBe(1);
    expect(signals.committed()).toMatchObject({ verdict: 'finished', decided_by: 'transcript', transcript_rule: 'phrase_complete' });
    await stream.aclose();
  });

  it("applies the audio model's held answer once words come that leave the turn open", async () => {
    const model = new FakeModel(0.12);
    const { signals, stream } = setup(model);
    const verdict = stream.predict();
    await model.answered;
    expect(verdict.done).toBe(false);
    signals.final("it's john");
    expect((await verdict.await).endOfTurnProbability).toBe(0.12);
    expect(signals.committed()).toMatchObject({ verdict: 'unfinished', decided_by: 'audio_model', audio_model_probability: 0.12 });
    await stream.aclose();
  });

  it('takes the turn as unfinished once the longest delay has passed with no answer from the audio model', async () => {
    const model = new FakeModel(0.9, false);
    const signals = new TurnSignals({ minMs: 20, maxMs: 150 });
    const stream = new CombinedTurnDetector(signals, model).stream();
    signals.final("it's john");
    const event = await stream.predict().await;
    expect(event.endOfTurnProbability).toBe(0);
    expect(signals.committed()).toMatchObject({ verdict: 'unfinished', decided_by: 'none', transcript: 'open', delay_ms: 150 });
    model.release();
    await stream.aclose();
  });

  it('voids a pending verdict when speech resumes, recording no decision', async () => {
    const model = new FakeModel(0.9, false);
    const { signals, stream } = setup(model);
    const verdict = stream.predict();
    stream.cancelInference();
    expect((await verdict.await).endOfTurnProbability).toBe(0);
    model.release();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(signals.committed()).toBeUndefined();
    await stream.aclose();
  });
});
