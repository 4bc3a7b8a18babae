import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { espeakSynthesize } from '../../media/voice/espeak.js';
import { decodeWav, encodeWav } from '../../media/wav.js';
import { speechSamples } from '../../test/fakes/scripted-caller.js';
import { startFakeOpenAI } from '../../test/fakes/vendors/openai.js';
import { launchChromium } from '../../test/helpers/chromium.js';
import { repliesTo, soundRegions, type SentenceReply } from './audio-regions.js';
import { greetingPlayout, PAGE_PROBE, type GreetingPlayout, type PlaybackLog } from './page-probe.js';
import { startService, type RunningService } from './service.js';

// A new user's first conversations, measured where they hear them: `npm start` on a fresh embedded database, an
// assistant with offline speech (`local` STT and TTS), an instant OpenAI-compatible LLM on 127.0.0.1 and the caller's
// phrases as keyterms; then browser calls from Debian's Chromium, the caller being espeak-ng audio played by its fake
// microphone. Each call's latency is read from its recording (the end of a caller sentence on the user track to the
// first assistant sound after it on the assistant track, both on the call's clock), the greeting's delay and any hole
// in it from what the page played after Start was clicked.
//
// Phases: `idle`, then `loaded` (two busy loops at the service's own priority, started before it boots, so both cores
// are taken for the whole phase). Each phase boots its own service, so its first call is the first after boot.
//
//   npm run bench:browser-calls -- --calls 20 --phases idle,loaded

const SENTENCES = ['book an appointment', 'what time is it', 'yes please', 'thank you'];
/** Where each sentence starts in the microphone's audio, after the page's Start: the first while or just after the greeting ends. */
const SENTENCE_AT_MS = [2_500, 8_500, 14_500, 20_500];
const MIC_AUDIO_MS = 45_000;
/** The call is hung up once every sentence has a reply, or this long after Start. */
const CALL_CAP_MS = 32_000;
const WELCOME = 'Hello, thanks for calling. How can I help?';
const REPLIES: Record<string, string> = {
  'book an appointment': 'Sure, for which day?',
  'what time is it': 'It is noon.',
  'yes please': 'Done.',
  'thank you': 'You are welcome.',
};
const RATE = 16_000;

interface CallResult {
  callSid: string;
  replies: SentenceReply[];
  greeting: GreetingPlayout;
  userTurns: number;
  sentencesHeard: number;
  error?: string;
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(Math.ceil((p / 100) * sorted.length) - 1, sorted.length - 1)]!;
}
const ms = (v: number | null | undefined) => (v !== null && v !== undefined && Number.isFinite(v) ? `${Math.round(v)} ms` : 'n/a');

async function callerAudio(dir: string): Promise<string> {
  const samples = new Int16Array((RATE * MIC_AUDIO_MS) / 1000);
  for (const [i, text] of SENTENCES.entries()) samples.set(await speechSamples(text), (RATE * SENTENCE_AT_MS[i]!) / 1000);
  const file = path.join(dir, 'caller.wav');
  await writeFile(file, encodeWav({ samples, sampleRate: RATE, channels: 1 }));
  return file;
}

/** The greeting's audio length as the local voice says it, sentence by sentence as the call's voice does. */
async function greetingAudioMs(): Promise<number> {
  let total = 0;
  for (const sentence of WELCOME.match(/[^.?!]+[.?!]/g) ?? [WELCOME]) {
    const audio = await espeakSynthesize(sentence.trim(), { voice: 'en-us', wordsPerMinute: 175, pitch: 50 });
    total += (audio.samples.length / audio.sampleRate) * 1000;
  }
  return total;
}

class Api {
  constructor(
    private readonly base: string,
    private readonly key: string,
  ) {}
  async request<T>(method: string, route: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.base}${route}`, {
      method,
      headers: { authorization: `Bearer ${this.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`);
    const answer = (await res.json()) as Record<string, unknown>;
    // Single resources of the older routes come in the `{success, message, data}` envelope; lists keep theirs.
    return ('success' in answer && 'data' in answer && !('pagination' in answer) ? answer.data : answer) as T;
  }
  async bytes(route: string): Promise<Uint8Array> {
    const res = await fetch(`${this.base}${route}`, { headers: { authorization: `Bearer ${this.key}` } });
    if (!res.ok) throw new Error(`GET ${route}: ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  }
}

async function waitFor<T>(read: () => Promise<T | undefined>, capMs: number, what: string): Promise<T> {
  const until = Date.now() + capMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`${what}: not within ${capMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function oneCall(api: Api, assistantId: number, micFile: string, greetingMs: number): Promise<CallResult> {
  const created = await api.request<{ call_sid: string; page_url: string }>('POST', '/api/web-calls/browser', { assistant_id: assistantId });
  // A browser of its own per call, so the fake microphone starts its file from the beginning at the call's Start.
  const browser = await launchChromium([
    '--autoplay-policy=no-user-gesture-required',
    '--use-fake-ui-for-media-stream',
    '--use-fake-device-for-media-stream',
    `--use-file-for-fake-audio-capture=${micFile}`,
  ]);
  try {
    const page = await browser.newPage();
    await page.addInitScript(PAGE_PROBE);
    await page.goto(created.page_url);
    await page.waitForFunction(() => (globalThis as unknown as { callState: { status: string } }).callState.status === 'Ready');
    await page.click('#start');
    // Every sentence answered (the greeting is the first assistant line), or the cap: a sentence left unanswered shows in the audio.
    await page
      .waitForFunction(
        (n) =>
          (globalThis as unknown as { callState: { transcript: Array<{ role: string }> } }).callState.transcript.filter((t) => t.role === 'assistant').length >
          n,
        SENTENCES.length,
        { timeout: CALL_CAP_MS },
      )
      .catch(() => undefined);
    // The last reply's sound, then hang up.
    await page.waitForTimeout(2_000);
    const log = (await page.evaluate(() => (globalThis as unknown as { playbackLog: PlaybackLog }).playbackLog)) as PlaybackLog;
    await page.click('#hangup');
    const call = await waitFor(
      async () => {
        const c = await api.request<{ status: string; recordings: Array<{ track: string; url: string }> }>('GET', `/api/calls/${created.call_sid}`);
        return ['completed', 'failed'].includes(c.status) && c.recordings.some((r) => r.track === 'user') ? c : undefined;
      },
      120_000,
      'the call ends with its recording',
    );
    const track = async (name: string) => {
      const rec = call.recordings.find((r) => r.track === name);
      if (!rec) throw new Error(`no ${name} track`);
      const wav = decodeWav(await api.bytes(rec.url));
      return wav;
    };
    const [user, assistant] = await Promise.all([track('user'), track('assistant')]);
    const sentences = soundRegions(user.samples, user.sampleRate);
    const spoken = soundRegions(assistant.samples, assistant.sampleRate);
    if (process.env.BENCH_DEBUG) console.error(JSON.stringify({ sentences, spoken, latency: (call as unknown as { latency: unknown }).latency }));
    const transcript = await api.request<Array<{ role: string }>>('GET', `/api/calls/${created.call_sid}/transcript`);
    return {
      callSid: created.call_sid,
      replies: repliesTo(sentences, spoken, (assistant.samples.length / assistant.sampleRate) * 1000),
      greeting: greetingPlayout(log, greetingMs, SENTENCE_AT_MS[0]!),
      userTurns: transcript.filter((t) => t.role === 'user').length,
      sentencesHeard: sentences.length,
    };
  } finally {
    await browser.close();
  }
}

function busyLoops(count: number): ChildProcess[] {
  return Array.from({ length: count }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
}

interface PhaseResult {
  phase: string;
  calls: CallResult[];
  vadSlowWarnings: number;
  loadAverage: number[];
}

async function runPhase(phase: 'idle' | 'loaded', calls: number, micFile: string, greetingMs: number, llmUrl: string): Promise<PhaseResult> {
  const hogs = phase === 'loaded' ? busyLoops(os.cpus().length) : [];
  const dataDir = await mkdtemp(path.join(os.tmpdir(), `bench-browser-${phase}-`));
  let service: RunningService | undefined;
  const results: CallResult[] = [];
  try {
    service = await startService(dataDir);
    const boot = service.cli(['bootstrap', '--org', 'Bench', '--email', 'bench@example.com']) as { api_key: string };
    const api = new Api(service.url, boot.api_key);
    const assistant = await api.request<{ id: number }>('POST', '/api/assistants', {
      name: 'First call',
      llm_provider: 'custom',
      llm_provider_config: { base_url: llmUrl, model: 'instant' },
      llm_settings: { welcome_message: WELCOME },
      stt_settings: { provider: 'local', keyterms: SENTENCES },
      tts_settings: { provider: 'local' },
      recording_settings: { recording_enabled: true, recording_format: 'wav' },
    });
    for (let i = 0; i < calls; i++) {
      try {
        const r = await oneCall(api, assistant.id, micFile, greetingMs);
        results.push(r);
        const e2e = r.replies.map((x) => (x.e2eMs === null ? 'unanswered' : `${Math.round(x.e2eMs)}`)).join(' ');
        console.error(
          `${phase} call ${i + 1}/${calls}: greeting ${ms(r.greeting.delayMs)}${r.greeting.gapsMs.length ? ` (holes ${r.greeting.gapsMs.map(Math.round).join(', ')} ms)` : ''}; e2e ${e2e}; ${r.sentencesHeard} sentences heard, ${r.userTurns} user turns stored`,
        );
      } catch (error) {
        console.error(`${phase} call ${i + 1}/${calls} failed: ${(error as Error).message}`);
        results.push({ callSid: '', replies: [], greeting: { delayMs: null, gapsMs: [] }, userTurns: 0, sentencesHeard: 0, error: (error as Error).message });
      }
    }
    return { phase, calls: results, vadSlowWarnings: service.warnings('slower than realtime'), loadAverage: os.loadavg() };
  } finally {
    for (const hog of hogs) hog.kill('SIGKILL');
    await service?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

function report(r: PhaseResult): void {
  const ok = r.calls.filter((c) => !c.error);
  const replies = ok.flatMap((c) => c.replies);
  const e2e = replies.flatMap((x) => (x.e2eMs === null ? [] : [x.e2eMs]));
  const unanswered = replies.filter((x) => x.e2eMs === null).length;
  const expected = ok.length * SENTENCES.length;
  const greetings = ok.flatMap((c) => (c.greeting.delayMs === null ? [] : [c.greeting.delayMs]));
  const holes = ok.flatMap((c) => c.greeting.gapsMs);
  console.log(
    `\n## ${r.phase} (${ok.length} of ${r.calls.length} calls completed; load average ${r.loadAverage.map((l) => l.toFixed(2)).join(' ')} at the end)\n`,
  );
  console.log(
    `end of caller speech -> first reply sound, from the recording: p50 ${ms(percentile(e2e, 50))}, p95 ${ms(percentile(e2e, 95))}, max ${ms(Math.max(...e2e))} over ${e2e.length} replies`,
  );
  console.log(
    `caller sentences left unanswered: ${unanswered} of ${replies.length} heard (${expected} spoken); sentences the assistant talked over: ${replies.filter((x) => x.talkedOver).length}`,
  );
  console.log(
    `calls whose stored user turns are fewer than the sentences heard (sentences merged): ${ok.filter((c) => c.userTurns < c.sentencesHeard).length}`,
  );
  console.log(
    `greeting's first sound after Start: first call after boot ${ms(ok[0]?.greeting.delayMs)}, p50 ${ms(percentile(greetings, 50))}, p95 ${ms(percentile(greetings, 95))}, max ${ms(Math.max(...greetings))}`,
  );
  console.log(`holes in the greeting's playout: ${holes.length}${holes.length ? ` (longest ${ms(Math.max(...holes))})` : ''}`);
  console.log(`"VAD inference is slower than realtime" warnings: ${r.vadSlowWarnings}`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { calls: { type: 'string', default: '20' }, phases: { type: 'string', default: 'idle,loaded' } } });
  const calls = Number(values.calls);
  const phases = values.phases!.split(',');
  if (!Number.isInteger(calls) || calls < 1 || calls > 100) throw new Error('--calls must be 1..100');
  if (phases.some((p) => p !== 'idle' && p !== 'loaded')) throw new Error('--phases: idle, loaded or both');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-browser-'));
  let replies = 0;
  const llm = await startFakeOpenAI((body) => {
    const messages = (body.messages ?? []) as Array<{ role: string; content: unknown }>;
    if (String(messages[0]?.content ?? '').startsWith('You analyse a finished phone call'))
      return { text: JSON.stringify({ summary: 'A test call.', goal_achieved: true, sentiment: 'neutral', fields: {} }) };
    const last = String(messages.filter((m) => m.role === 'user').at(-1)?.content ?? '').toLowerCase();
    // Every reply's first sentence is new, as a model's are: the offline voice keeps short sentences it has made, and a
    // repeated reply would be measured from that store instead of from a synthesis.
    replies++;
    return { text: `Reply ${replies}. ${Object.entries(REPLIES).find(([said]) => last.includes(said))?.[1] ?? 'I see.'}` };
  });
  const started = Date.now();
  try {
    const micFile = await callerAudio(dir);
    const greetingMs = await greetingAudioMs();
    console.log(
      `node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}); load average at start ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    console.log(`${calls} browser calls per phase, ${SENTENCES.length} caller sentences each; greeting "${WELCOME}" (${Math.round(greetingMs)} ms of audio)`);
    for (const phase of phases as Array<'idle' | 'loaded'>) report(await runPhase(phase, calls, micFile, greetingMs, llm.url));
  } finally {
    await llm.close();
    await rm(dir, { recursive: true, force: true });
    console.log(`\ntotal ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
}

await main();
