import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { initializeLogger, voice } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';
import { CallAgent } from '../../agent/call/call-agent.js';
import { buildSessionOptions } from '../../agent/call/session-config.js';
import { ToolRuns } from '../../agent/call/tool-runs.js';
import { callToolContext } from '../../agent/call/tools.js';
import { PacedAudioOutput } from '../../agent/io/paced-audio-output.js';
import { PushAudioInput } from '../../agent/io/push-audio-input.js';
import { loadVad } from '../../agent/turn/vad.js';
import { resampleLinear } from '../../media/pcm.js';
import { espeakSynthesize } from '../../media/voice/espeak.js';
import type { CallTool } from '../../modules/tools/index.js';
import { startFakeOpenAI } from '../../test/fakes/vendors/openai.js';
import { BenchCaller, CALLER_RATE, trimSilence } from '../pipeline/caller.js';
import { benchSettings } from '../pipeline/bench-call.js';
import { BENCH_ACCESS, InstantSTT, InstantTTS } from '../pipeline/instant-providers.js';

// The silence a caller hears while a tool runs, with and without the tool's spoken messages. A whole call's pipeline
// in this process (the session as run-call.ts builds it, the product's tool execution and tool runs, the paced audio
// output), with an instant recogniser and voice and an instant model on loopback that calls an HTTP tool on loopback
// answering after TOOL_MS. The caller asks once; from the last frame of their speech to the end of the reply that
// answers with the tool's result, the bench records what the caller hears: the first sound, and the longest stretch
// without any. Usage: npm run bench:tool-silence [-- runs]   (default 5 calls per variant; bounded to 20)

initializeLogger({ pretty: false, level: 'silent' });

const RUNS = Math.min(Number(process.argv[2] ?? 5), 20);
const TOOL_MS = 2_000;
const REPLY = 'Your order shipped this morning.';
const QUESTION = 'Where is my order?';
/** Gaps shorter than this are the seams between frames and sentences, not silence a caller notices. */
const GAP_MS = 60;

const VARIANTS: Array<{ name: string; messages: CallTool['messages'] }> = [
  { name: 'no messages', messages: { on_start: null, on_slow: null, slow_after_ms: 2_000, on_failure: null } },
  { name: 'on_slow after 700 ms', messages: { on_start: null, on_slow: 'One moment, let me check that.', slow_after_ms: 700, on_failure: null } },
  { name: 'on_start', messages: { on_start: 'Let me look that up.', on_slow: null, slow_after_ms: 2_000, on_failure: null } },
];

interface Sample {
  firstSoundMs: number;
  longestSilenceMs: number;
  replyEndMs: number;
}

/** Played audio as intervals of wall-clock time. */
class HeardOutput extends PacedAudioOutput {
  readonly heard: Array<[number, number]> = [];
  constructor() {
    super();
    this.onPlayed((frame: AudioFrame) => {
      const end = Date.now();
      this.heard.push([end - (frame.samplesPerChannel * 1000) / frame.sampleRate, end]);
    });
  }
}

function measure(heard: Array<[number, number]>, from: number): Sample | undefined {
  const after = heard.filter(([, end]) => end > from).sort((a, b) => a[0] - b[0]);
  if (after.length === 0) return undefined;
  let longest = Math.max(after[0]![0] - from, 0);
  let reach = after[0]![1];
  for (const [start, end] of after.slice(1)) {
    if (start - reach > GAP_MS) longest = Math.max(longest, start - reach);
    reach = Math.max(reach, end);
  }
  return { firstSoundMs: Math.max(after[0]![0] - from, 0), longestSilenceMs: longest, replyEndMs: reach - from };
}

async function until(read: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (read()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

const tool = http.createServer((_req, res) => {
  setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"shipped"}'), TOOL_MS);
});
await new Promise<void>((resolve) => tool.listen(0, '127.0.0.1', resolve));
const toolUrl = `http://127.0.0.1:${(tool.address() as AddressInfo).port}/orders/latest`;
const llm = await startFakeOpenAI((body) => {
  const messages = (body.messages ?? []) as Array<{ role: string }>;
  return messages.at(-1)?.role === 'tool' ? { text: REPLY } : { toolCalls: [{ name: 'order_status', arguments: '{}' }] };
});
const speech = await espeakSynthesize(QUESTION, { voice: 'en-us', wordsPerMinute: 175, pitch: 50 });
const question = { text: QUESTION, samples: trimSilence(resampleLinear(speech.samples, speech.sampleRate, CALLER_RATE)) };
const vad = await loadVad(300);
const settings = benchSettings(llm.url);

async function oneCall(messages: CallTool['messages']): Promise<Sample | undefined> {
  const parts = await buildSessionOptions(settings, { vad, access: BENCH_ACCESS, stt: new InstantSTT() });
  const session = new voice.AgentSession({ ...parts.options, tts: new InstantTTS() });
  const input = new PushAudioInput();
  const output = new HeardOutput();
  session.input.audio = input;
  session.output.audio = output;
  const caller = new BenchCaller(input);
  let speechEnd = 0;
  caller.onSpeechEnd = (_text, at) => (speechEnd = at);
  const runs = new ToolRuns({ minInterruptionWords: 1, interruptions: true });
  const detach = runs.attach(session);
  let answered = false;
  const tools = callToolContext(
    [
      {
        name: 'order_status',
        description: "Looks up the caller's latest order",
        type: 'http',
        parameters: { type: 'object', properties: {} },
        http: { method: 'GET', url: toolUrl, headers: {}, query: {}, body: null, secretHeaders: {}, timeoutMs: 10_000 },
        transfer: null,
        messages,
      },
    ],
    { values: { variables: {}, contact: {} }, allowPrivateTargets: true, onHttpResult: () => (answered = true), runs },
  );
  parts.turns.attach(session);
  await session.start({ agent: new CallAgent({ instructions: 'You look up orders.', turns: parts.turns, tools }), record: false });
  caller.start();
  caller.say(question, 300);
  // The reply with the tool's result has played once the tool answered and the assistant is quiet again.
  const done = await until(() => answered && session.agentState === 'listening' && output.heard.at(-1)![1] > speechEnd, 30_000);
  detach();
  caller.stop();
  input.end();
  output.close();
  await session.close().catch(() => {});
  return done && speechEnd > 0 ? measure(output.heard, speechEnd) : undefined;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
console.log(`a ${TOOL_MS} ms tool, ${RUNS} calls per variant; ms from the caller's end of speech (median, then each call)`);
console.log('| Spoken messages | First sound | Longest silence | Reply played by |');
console.log('| - | - | - | - |');
try {
  for (const variant of VARIANTS) {
    const samples: Sample[] = [];
    for (let run = 0; run < RUNS; run++) {
      const sample = await oneCall(variant.messages);
      if (sample) samples.push(sample);
    }
    const cell = (pick: (s: Sample) => number) => `${Math.round(median(samples.map(pick)))} (${samples.map((s) => Math.round(pick(s))).join(', ')})`;
    console.log(`| ${variant.name} | ${cell((s) => s.firstSoundMs)} | ${cell((s) => s.longestSilenceMs)} | ${cell((s) => s.replyEndMs)} |`);
  }
} finally {
  await llm.close();
  tool.close();
}
