import type { AudioFrame } from '@livekit/rtc-node';
import { voice, type VAD } from '@livekit/agents';
import { PacedAudioOutput } from '../../agent/io/paced-audio-output.js';
import { PushAudioInput } from '../../agent/io/push-audio-input.js';
import { CallAgent } from '../../agent/call/call-agent.js';
import { buildSessionOptions } from '../../agent/call/session-config.js';
import { AssistantSettings, DEFAULT_SYSTEM_PROMPT } from '../../modules/assistants/index.js';
import { BENCH_ACCESS, InstantSTT, InstantTTS } from '../pipeline/instant-providers.js';
import { TimelineCaller } from './caller.js';

// One call's session built as the runtime builds it (buildSessionOptions over the assistant's settings, the VAD the
// runtime picks for them, the same audio input and paced output), with the pipeline benchmark's instant recogniser and
// voice, and everything the turn-taking figures are read from noted with its wall-clock time.

/**
 * A paced output that tells one reply's audio from the next: a segment ends when the session flushes it or clears it,
 * and every frame is tagged with the segment it was handed over in, so that a frame of an interrupted reply that plays
 * later is recognised as such, whatever played in between.
 */
class ObservedOutput extends PacedAudioOutput {
  readonly #segmentOf = new WeakMap<AudioFrame, number>();
  #segment = 0;
  #capturedInSegment = false;
  #paused = false;
  /** Orders what happened within one millisecond. */
  #seq = 0;
  /** When the reply's audio was stopped: paused (it may resume) or cleared (it is over). */
  readonly stops: Array<{ at: number; seq: number; how: 'pause' | 'clear' }> = [];
  readonly resumes: Array<{ at: number; seq: number }> = [];
  /** Every frame as it played: wall-clock time and the segment it belongs to. */
  readonly played: Array<{ at: number; seq: number; segment: number }> = [];

  constructor() {
    super();
    this.onPlayed((frame) => this.played.push({ at: Date.now(), seq: this.#seq++, segment: this.#segmentOf.get(frame) ?? -1 }));
  }

  override async captureFrame(frame: AudioFrame): Promise<void> {
    this.#segmentOf.set(frame, this.#segment);
    this.#capturedInSegment = true;
    return super.captureFrame(frame);
  }

  override flush(): void {
    super.flush();
    this.#nextSegment();
  }

  override clearBuffer(): void {
    this.stops.push({ at: Date.now(), seq: this.#seq++, how: 'clear' });
    super.clearBuffer();
    this.#nextSegment();
  }

  override pause(): void {
    if (!this.#paused) this.stops.push({ at: Date.now(), seq: this.#seq++, how: 'pause' });
    this.#paused = true;
    super.pause();
  }

  override resume(): void {
    if (this.#paused) this.resumes.push({ at: Date.now(), seq: this.#seq++ });
    this.#paused = false;
    super.resume();
  }

  #nextSegment(): void {
    if (!this.#capturedInSegment) return;
    this.#segment++;
    this.#capturedInSegment = false;
  }
}

export interface Commit {
  at: number;
  text: string;
}

export interface Prediction {
  at: number;
  probability: number;
  threshold: number;
}

export class TurnsCall {
  readonly input = new PushAudioInput();
  readonly output = new ObservedOutput();
  readonly caller = new TimelineCaller(this.input);
  /** User turns committed: the session added the caller's words to the conversation and began its reply. */
  readonly commits: Commit[] = [];
  /** Each end-of-turn verdict, the audio model's or the text rules'. */
  readonly predictions: Prediction[] = [];
  readonly falseInterruptions: Array<{ at: number; resumed: boolean }> = [];
  errors = 0;
  /** What settled each end-of-turn verdict: the words, or the audio model. */
  readonly decidedBy: string[] = [];
  /** The assistant as the session runs it: its conversation is what the model reads. */
  agent: CallAgent | undefined;
  readonly #session: voice.AgentSession;

  private constructor(session: voice.AgentSession) {
    this.#session = session;
    session.input.audio = this.input;
    session.output.audio = this.output;
    session.on(voice.AgentSessionEventTypes.ConversationItemAdded, ({ item, createdAt }) => {
      if (item.type === 'message' && item.role === 'user') this.commits.push({ at: createdAt, text: item.textContent ?? '' });
    });
    session.on(voice.AgentSessionEventTypes.EotPrediction, (ev) =>
      this.predictions.push({ at: ev.createdAt, probability: ev.probability, threshold: ev.threshold }),
    );
    session.on(voice.AgentSessionEventTypes.AgentFalseInterruption, (ev) => this.falseInterruptions.push({ at: ev.createdAt, resumed: ev.resumed }));
    session.on(voice.AgentSessionEventTypes.Error, () => void this.errors++);
  }

  get session(): voice.AgentSession {
    return this.#session;
  }

  static async start(settings: AssistantSettings, vad: VAD): Promise<TurnsCall> {
    const parts = await buildSessionOptions(settings, { vad, access: BENCH_ACCESS, stt: new InstantSTT() });
    const session = new voice.AgentSession({ ...parts.options, tts: new InstantTTS() });
    const call = new TurnsCall(session);
    parts.turns.attach(session);
    parts.turns.signals.onDecision((decision) => call.decidedBy.push(decision.decided_by));
    call.agent = new CallAgent({ instructions: settings.llm_settings.system_prompt ?? DEFAULT_SYSTEM_PROMPT, turns: parts.turns });
    await session.start({ agent: call.agent, record: false });
    call.caller.start();
    return call;
  }

  /** Polls `done` every 10 ms until it holds or `deadline` (wall-clock ms) passes; says which. */
  async until(done: () => boolean, deadline: number): Promise<boolean> {
    while (!done()) {
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return true;
  }

  /** Hangs up; safe to call twice. */
  async close(timeoutMs: number): Promise<void> {
    this.caller.stop();
    this.input.end();
    this.output.close();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.#session.close().catch(() => {}), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
  }
}
