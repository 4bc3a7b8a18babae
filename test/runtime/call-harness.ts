import { initializeLogger } from '@livekit/agents';
import type { AudioFrame } from '@livekit/rtc-node';
import { mkdtemp, rm } from 'node:fs/promises';
import { onTestFinished } from 'vitest';
import os from 'node:os';
import path from 'node:path';
import { PacedAudioOutput } from '../../agent/io/paced-audio-output.js';
import { PushAudioInput } from '../../agent/io/push-audio-input.js';
import { vendorAccessFromEnv } from '../../agent/providers/speech-providers.js';
import { runCall, type CallResult } from '../../agent/call/run-call.js';
import { createAssistant } from '../../modules/assistants/service.js';
import { bootstrap } from '../../modules/organizations/bootstrap.js';
import type { PrismaClient } from '../../prisma/client.js';
import { ScriptedCaller, type ScheduledUtterance } from '../fakes/scripted-caller.js';
import { CallProgress, type Cue } from './call-progress.js';
import { LOOPBACK_VENDOR_HOSTS } from '../helpers/vendor-hosts.js';
import { CALL_CLOCK_SCALE, scaleClock } from '../helpers/scaled-clock.js';

// Runs a whole call through the runtime against a real database: a scripted caller speaks into the call's audio input
// at given times or on cues from the call's progress (after the welcome, into a reply), the assistant's replies play
// out in real time, vendors are fake servers on 127.0.0.1. A test hangs up on a cue too (the reply it waits for has
// been spoken), so the conversation is the same on a loaded machine as on an idle one, only slower.

export { afterAssistantSaid, afterCallerSaid, afterReply, connected, whileSpeaking, type Cue } from './call-progress.js';

/** An utterance of the script: at `atMs` from the start, or `atMs` after its cue first held. */
export type ScriptLine = Omit<ScheduledUtterance, 'after'> & { after?: Cue };

/** A caller hangs up a moment after what they waited for, not in the same millisecond. */
const HANGUP_AFTER_CUE_MS = 300;

initializeLogger({ pretty: false, level: 'silent' });

export const PHRASES = ['what time is it', 'yes please', 'no thanks', 'book an appointment', 'stop', 'good morning', 'thank you'];

// One per database (each test file has its own), made on first use: test files may share this module.
const organizations = new WeakMap<PrismaClient, Promise<{ organization_id: number; user_id: number }>>();

function organizationOf(prisma: PrismaClient) {
  let org = organizations.get(prisma);
  if (!org) organizations.set(prisma, (org = bootstrap(prisma, { organizationName: 'Runtime tests', email: 'runtime@example.com' })));
  return org;
}

/** The organisation the runtime tests' calls belong to, made on first use. */
export async function runtimeOrganization(prisma: PrismaClient): Promise<number> {
  return (await organizationOf(prisma)).organization_id;
}

export async function createCall(
  prisma: PrismaClient,
  settings: Record<string, unknown>,
  call: { welcomeMessage?: string; variables?: Record<string, string> } = {},
) {
  const org = await organizationOf(prisma);
  const assistant = await createAssistant(
    prisma,
    { organizationId: org.organization_id, userId: org.user_id },
    { name: 'Runtime', ...settings } as never,
    undefined,
    LOOPBACK_VENDOR_HOSTS,
  );
  return prisma.call.create({
    data: {
      callSid: `CA${Math.random().toString(16).slice(2, 14)}`,
      organizationId: org.organization_id,
      assistantId: assistant.id,
      direction: 'inbound',
      welcomeMessage: call.welcomeMessage ?? null,
      variables: call.variables ?? {},
    },
  });
}

/** Assistant settings for a call on the offline voice and recogniser with a fake OpenAI server. */
export function localSettings(llmUrl: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    llm_provider: 'custom',
    llm_provider_config: { base_url: llmUrl, model: 'fake-model', custom_config: { api_key: 'test-key' } },
    stt_settings: {
      provider: 'local',
      keyterms: PHRASES,
      turn_detection: { mode: 'text_turn_detector', min_endpointing_delay: 0.3, max_endpointing_delay: 1.5 },
    },
    tts_settings: { provider: 'local', provider_config: { words_per_minute: 230 } },
    recording_settings: { recording_enabled: false },
    ...overrides,
  };
}

export interface TimelineRun {
  result: CallResult;
  caller: ScriptedCaller;
  output: PacedAudioOutput;
  progress: CallProgress;
  /** Ms after the caller started (as `caller.spoken` counts) at which assistant audio frames played. */
  playedAtMs: number[];
  /**
   * Ms after the caller started at which the call itself started: the origin of its recordings. A busy machine widens
   * it (the caller speaks from the first moment, the call starts once its settings and models are loaded).
   */
  callStartMs: number;
  dataDir: string;
}

export async function runTimeline(
  prisma: PrismaClient,
  callId: number,
  script: ScriptLine[],
  opts: {
    /** Hangs up this long after the start: for a test about time (a maximum duration), not to wait for a reply. */
    hangupAtMs?: number;
    /** Hangs up once this holds (the reply waited for has been spoken). Without any hang-up the call ends itself. */
    hangupWhen?: Cue;
    /** Hangs up once this settles (a row the test waits for has been written). */
    hangupAfter?: (progress: CallProgress) => Promise<unknown>;
    env?: NodeJS.ProcessEnv;
    onSession?: Parameters<typeof runCall>[0]['onSession'];
    heartbeatIntervalMs?: number;
    /** The call's DATA_DIR; a fresh temp folder by default. */
    dataDir?: string;
    tools?: Parameters<typeof runCall>[0]['tools'];
    secrets?: Parameters<typeof runCall>[0]['secrets'];
    allowPrivateToolTargets?: boolean;
    retrievalTimeoutMs?: number;
    machineDetector?: Parameters<typeof runCall>[0]['machineDetector'];
    /** Plays the call on the wall clock, for a test about what the wall clock measures. */
    realTime?: boolean;
    /** Collects the assistant's audio frames as they play. */
    playedFrames?: AudioFrame[];
  } = {},
): Promise<TimelineRun> {
  const input = new PushAudioInput();
  const output = new PacedAudioOutput();
  const caller = new ScriptedCaller(input);
  const progress = new CallProgress();
  await caller.schedule(script.map(({ after, ...line }) => ({ ...line, ...(after ? { after: () => after(progress) } : {}) })));
  const hangup = new AbortController();
  const dataDir = opts.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'call-data-')));
  // A folder the harness made is removed once the test has read it (its recordings); one given is the caller's.
  if (!opts.dataDir) onTestFinished(() => rm(dataDir, { recursive: true, force: true }));
  // From here to the end of the call (the finally below), the call runs on the scaled clock.
  const restoreClock = opts.realTime || CALL_CLOCK_SCALE === 1 ? () => undefined : scaleClock(CALL_CLOCK_SCALE);
  const playedAtMs: number[] = [];
  const t0 = Date.now();
  output.onPlayed((frame, at) => {
    playedAtMs.push(at - t0);
    opts.playedFrames?.push(frame);
  });
  caller.start();
  const timer = opts.hangupAtMs !== undefined ? setTimeout(() => hangup.abort(), opts.hangupAtMs) : undefined;
  const cued = [opts.hangupWhen && ((p: CallProgress) => p.until(opts.hangupWhen!)), opts.hangupAfter].filter((f) => f !== undefined);
  for (const wait of cued) {
    wait(progress).then(
      () => setTimeout(() => hangup.abort(), HANGUP_AFTER_CUE_MS),
      // The call ended first: there is nothing left to hang up.
      () => undefined,
    );
  }
  try {
    const result = await runCall({
      prisma,
      callId,
      audioInput: input,
      audioOutput: output,
      signal: hangup.signal,
      dataDir,
      // The fake vendors listen on 127.0.0.1, as an operator's own LLM server would: allowed the way an operator allows it.
      access: vendorAccessFromEnv({ VENDOR_PRIVATE_HOSTS: '127.0.0.1', ...opts.env }),
      onSession: (session) => {
        progress.attach(session);
        opts.onSession?.(session);
      },
      ...(opts.tools ? { tools: opts.tools } : {}),
      ...(opts.secrets ? { secrets: opts.secrets } : {}),
      ...(opts.allowPrivateToolTargets !== undefined ? { allowPrivateToolTargets: opts.allowPrivateToolTargets } : {}),
      ...(opts.heartbeatIntervalMs !== undefined ? { heartbeatIntervalMs: opts.heartbeatIntervalMs } : {}),
      ...(opts.retrievalTimeoutMs !== undefined ? { retrievalTimeoutMs: opts.retrievalTimeoutMs } : {}),
      ...(opts.machineDetector ? { machineDetector: opts.machineDetector } : {}),
    });
    const { startedAt } = await prisma.call.findUniqueOrThrow({ where: { id: callId }, select: { startedAt: true } });
    return { result, caller, output, progress, playedAtMs, callStartMs: (startedAt?.getTime() ?? t0) - t0, dataDir };
  } finally {
    if (timer) clearTimeout(timer);
    caller.stop();
    input.end();
    output.close();
    restoreClock();
  }
}
