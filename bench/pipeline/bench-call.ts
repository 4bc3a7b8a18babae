import type { AudioFrame } from '@livekit/rtc-node';
import { voice, type VAD } from '@livekit/agents';
import { PacedAudioOutput } from '../../agent/io/paced-audio-output.js';
import { PushAudioInput } from '../../agent/io/push-audio-input.js';
import { CallAgent } from '../../agent/call/call-agent.js';
import { buildSessionOptions } from '../../agent/call/session-config.js';
import { CallRecorder } from '../../media/recording/recorder.js';
import { AssistantSettings, DEFAULT_SYSTEM_PROMPT } from '../../modules/assistants/index.js';
import { BenchCaller } from './caller.js';
import { BENCH_ACCESS, InstantSTT, InstantTTS } from './instant-providers.js';

// One call's pipeline as run-call.ts builds it (session options from the assistant's settings through
// buildSessionOptions, the same audio input and paced output, the recorder fed frame by frame when recording is on),
// with the recogniser and the voice swapped for instant ones. The LLM stays the product's own client, pointed at an
// instant OpenAI-compatible server. Database work before and after the call, and rendering the recording, are left out:
// none of it runs while the caller and the assistant talk.

export interface Turn {
  text: string;
  /** Wall-clock ms at which the caller's last speech frame was pushed. */
  speechEndAt: number;
  /** The session reported the caller stopped speaking (Silero's end of speech). */
  vadEndAt?: number;
  /** The user turn was committed and the reply began (agent state "thinking"). */
  committedAt?: number;
  /** The first frame of the reply played. */
  firstAudioAt?: number;
  /** Endpointing delay the turn detector chose for this turn: min, or max when it judged the turn unfinished. */
  delay?: 'min' | 'max';
}

export function benchSettings(llmUrl: string, turnDetection: Record<string, unknown> = {}): AssistantSettings {
  return AssistantSettings.parse({
    name: 'Pipeline bench',
    llm_provider: 'custom',
    llm_provider_config: { base_url: llmUrl, model: 'bench-model', custom_config: { api_key: 'bench-key' } },
    stt_settings: { turn_detection: turnDetection },
  });
}

/** A paced output that notes when the session resumes it, so a resumed clock is not read as a late frame. */
class MeteredOutput extends PacedAudioOutput {
  resumed = false;

  override resume(): void {
    this.resumed = true;
    super.resume();
  }
}

export class BenchCall {
  readonly input = new PushAudioInput();
  readonly output = new MeteredOutput();
  readonly caller = new BenchCaller(this.input);
  readonly turns: Turn[] = [];
  /** Per played frame: how much later than its due time it played, ms. */
  readonly latenessMs: number[] = [];
  readonly userTranscripts: string[] = [];
  errors = 0;
  interruptions = 0;
  readonly #recorder: CallRecorder;
  readonly #session: voice.AgentSession;
  readonly #unsubscribe: Array<() => void> = [];
  /** Due time the next frame would have if playout continued without a gap; unset at the start of a segment. */
  #expectedDueAt: number | undefined;

  private constructor(session: voice.AgentSession, recording: boolean) {
    this.#session = session;
    this.#recorder = new CallRecorder(Date.now());
    session.input.audio = this.input;
    session.output.audio = this.output;
    if (recording) {
      this.#unsubscribe.push(this.input.onFrame((f) => this.#recorder.addUser(f)));
      this.#unsubscribe.push(this.output.onPlayed((f, at) => this.#recorder.addAssistant(f, at)));
    }
    this.caller.onSpeechEnd = (text, at) => this.turns.push({ text, speechEndAt: at });
    this.output.on(voice.AudioOutput.EVENT_PLAYBACK_STARTED, () => (this.#expectedDueAt = undefined));
    this.#unsubscribe.push(this.output.onPlayed(this.#played));

    const open = () => this.turns.at(-1);
    session.on(voice.AgentSessionEventTypes.UserStateChanged, (ev) => {
      const turn = open();
      if (ev.newState === 'listening' && turn && turn.vadEndAt === undefined && ev.createdAt >= turn.speechEndAt) turn.vadEndAt = ev.createdAt;
    });
    session.on(voice.AgentSessionEventTypes.AgentStateChanged, (ev) => {
      const turn = open();
      if (ev.newState === 'thinking' && turn && turn.committedAt === undefined && ev.createdAt >= turn.speechEndAt) turn.committedAt = ev.createdAt;
    });
    session.on(voice.AgentSessionEventTypes.EotPrediction, (ev) => {
      const turn = open();
      if (turn && turn.delay === undefined) turn.delay = ev.probability < ev.threshold ? 'max' : 'min';
    });
    session.on(voice.AgentSessionEventTypes.ConversationItemAdded, ({ item }) => {
      if (item.type === 'message' && item.role === 'user') this.userTranscripts.push(item.textContent ?? '');
      if (item.type === 'message' && item.role === 'assistant' && item.interrupted) this.interruptions++;
    });
    session.on(voice.AgentSessionEventTypes.Error, () => void this.errors++);
  }

  static async start(settings: AssistantSettings, vad: VAD): Promise<BenchCall> {
    const parts = await buildSessionOptions(settings, { vad, access: BENCH_ACCESS, stt: new InstantSTT() });
    const session = new voice.AgentSession({ ...parts.options, tts: new InstantTTS() });
    const call = new BenchCall(session, settings.recording_settings.recording_enabled);
    parts.turns.attach(session);
    await session.start({
      agent: new CallAgent({ instructions: settings.llm_settings.system_prompt ?? DEFAULT_SYSTEM_PROMPT, turns: parts.turns }),
      record: false,
    });
    call.caller.start();
    return call;
  }

  #played = (frame: AudioFrame, dueAt: number): void => {
    const now = Date.now();
    if (this.output.resumed) {
      this.output.resumed = false;
      this.#expectedDueAt = undefined;
    }
    // The output restarts its clock from "now" after a stall of over 100 ms; measuring against where the previous
    // frame left off keeps such a stall visible as lateness instead of hiding it.
    this.latenessMs.push(Math.max(now - (this.#expectedDueAt ?? dueAt), 0));
    this.#expectedDueAt = dueAt + (frame.samplesPerChannel * 1000) / frame.sampleRate;
    const turn = this.turns.at(-1);
    if (turn && turn.firstAudioAt === undefined && now >= turn.speechEndAt) turn.firstAudioAt = now;
  };

  /** Waits until the reply to the caller's `index`-th utterance has played out, or `timeoutMs` passes. */
  async replyPlayed(index: number, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const turn = this.turns[index];
      if (turn?.firstAudioAt !== undefined && this.#session.agentState !== 'speaking') return true;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return false;
  }

  /** Hangs up; safe to call twice. */
  async close(timeoutMs: number): Promise<void> {
    this.caller.stop();
    this.input.end();
    this.output.close();
    for (const u of this.#unsubscribe.splice(0)) u();
    // The recording's spool is written as in a call (to disk, flushed every second); the benchmark keeps no file.
    await this.#recorder.discard();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.#session.close().catch(() => {}), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
  }
}
