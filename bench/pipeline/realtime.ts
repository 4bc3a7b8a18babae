import { initializeLogger, voice } from '@livekit/agents';
import { espeakSynthesize } from '../../media/voice/espeak.js';
import { resampleLinear } from '../../media/pcm.js';
import { PacedAudioOutput } from '../../agent/io/paced-audio-output.js';
import { PushAudioInput } from '../../agent/io/push-audio-input.js';
import { CallAgent } from '../../agent/call/call-agent.js';
import { buildSessionOptions } from '../../agent/call/session-config.js';
import { AssistantSettings } from '../../modules/assistants/index.js';
import { startFakeOpenAIRealtime } from '../../test/fakes/vendors/openai-realtime.js';
import { BenchCaller, CALLER_RATE, trimSilence, type Utterance } from './caller.js';
import { BENCH_ACCESS } from './instant-providers.js';

// The latency the speech-to-speech path adds on our side: a call's session built as run-call.ts builds it for an
// assistant with `realtime_settings` (buildSessionOptions, OpenAI's plugin, the same audio input and paced output),
// talking to the fake Realtime server on 127.0.0.1, which answers at once: its VAD ends the turn after the configured
// silence (counted on the audio it receives), and its reply's first audio follows immediately. So what is measured
// is ours and the framework's: the caller's audio resampled, framed and sent over the socket, the vendor's events
// read, the reply's audio decoded, queued and played, the first frame heard. A real vendor adds its own time to
// first audio (hundreds of ms) on top; the endpointing silence is subtracted, as it is the assistant's setting.
//
// BENCH_TURNS (default 15) turns, BENCH_SILENCE_MS (default 300) the vendor's silence_duration_ms.

const TURNS = Number(process.env.BENCH_TURNS ?? 15);
const SILENCE_MS = Number(process.env.BENCH_SILENCE_MS ?? 300);
const PHRASES = ['What time is it?', 'Good morning.', 'Yes, please.', 'Thank you very much.', 'Book a table for two.'];
const REPLY = 'Sure, will do.';
const CAP_MS = 3 * 60_000;

interface Turn {
  speechEndAt: number;
  stoppedAt?: number;
  firstAudioAt?: number;
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(Math.ceil((p / 100) * sorted.length) - 1, sorted.length - 1)]!;
}
const ms = (v: number) => (Number.isFinite(v) ? `${Math.round(v)} ms` : 'n/a');

async function phrases(): Promise<Utterance[]> {
  const out: Utterance[] = [];
  for (const text of PHRASES) {
    const audio = await espeakSynthesize(text, { voice: 'en-us', wordsPerMinute: 175, pitch: 50 });
    out.push({ text, samples: trimSilence(resampleLinear(audio.samples, audio.sampleRate, CALLER_RATE)) });
  }
  return out;
}

async function main(): Promise<void> {
  initializeLogger({ pretty: false, level: process.env.BENCH_LOG_LEVEL ?? 'silent' });
  const started = Date.now();
  // speedup: the reply's words are generated 10,000 times faster than they are spoken, so its first audio is at once.
  const fake = await startFakeOpenAIRealtime({ heard: (n) => PHRASES[n % PHRASES.length]!, reply: () => ({ text: REPLY }), speedup: 10_000 });
  const settings = AssistantSettings.parse({
    name: 'Speech-to-speech bench',
    realtime_settings: { enabled: true, provider: 'openai', base_url: fake.baseUrl },
    stt_settings: { turn_detection: { min_endpointing_delay: SILENCE_MS / 1000 } },
  });
  const parts = await buildSessionOptions(settings, { access: BENCH_ACCESS });
  const session = new voice.AgentSession(parts.options);
  const input = new PushAudioInput();
  const output = new PacedAudioOutput();
  session.input.audio = input;
  session.output.audio = output;
  const caller = new BenchCaller(input);
  const turns: Turn[] = [];
  caller.onSpeechEnd = (_text, at) => turns.push({ speechEndAt: at });
  session.on(voice.AgentSessionEventTypes.UserStateChanged, (ev) => {
    const turn = turns.at(-1);
    if (ev.oldState === 'speaking' && turn && turn.stoppedAt === undefined) turn.stoppedAt = ev.createdAt;
  });
  output.onPlayed(() => {
    const turn = turns.at(-1);
    if (turn && turn.firstAudioAt === undefined) turn.firstAudioAt = Date.now();
  });
  await session.start({ agent: new CallAgent({ instructions: 'You answer briefly.' }), record: false });
  caller.start();
  const utterances = await phrases();
  for (let i = 0; i < TURNS && Date.now() - started < CAP_MS; i++) {
    caller.say(utterances[i % utterances.length]!);
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && !(turns[i]?.firstAudioAt !== undefined && session.agentState !== 'speaking')) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  caller.stop();
  input.end();
  output.close();
  await session.close();
  await fake.close();

  const answered = turns.filter((t) => t.firstAudioAt !== undefined && t.stoppedAt !== undefined);
  const added = answered.map((t) => t.firstAudioAt! - t.speechEndAt - SILENCE_MS);
  const afterStop = answered.map((t) => t.firstAudioAt! - t.stoppedAt!);
  const toStop = answered.map((t) => t.stoppedAt! - t.speechEndAt - SILENCE_MS);
  console.log(
    `Speech-to-speech path against the fake Realtime server, ${answered.length} of ${turns.length} turns answered, silence_duration_ms ${SILENCE_MS}`,
  );
  console.log('| Measure | p50 | p95 | max |');
  console.log('| - | - | - | - |');
  const row = (label: string, values: number[]) =>
    console.log(`| ${label} | ${ms(percentile(values, 50))} | ${ms(percentile(values, 95))} | ${ms(Math.max(...values))} |`);
  row('Added: caller stops to first reply audio, less the silence', added);
  row("  of which: to the vendor's speech_stopped reaching the session", toStop);
  row('  of which: speech_stopped to first reply audio played', afterStop);
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
