import type { KnowledgeSearch } from '../../modules/knowledge/index.js';
import { processKnowledge, turnPromptOf } from '../call/knowledge.js';
import type { llm } from '@livekit/agents';
import type { PrismaClient } from '../../prisma/client.js';
import type { SecretBox } from '../../lib/secret-box.js';
import {
  AssistantSettings,
  DEFAULT_SYSTEM_PROMPT,
  loadAssistantVersioned,
  renderPrompt,
  renderTemplate,
  type TemplateValues,
} from '../../modules/assistants/index.js';
import { loadContactFields } from '../../modules/calls/index.js';
import { loadCallPlaybooks, loadPlaybookForRun, type CallPlaybook } from '../../modules/playbooks/index.js';
import { type ClaimedRun, judgeAll, type RepetitionOut, type RunOutcome, type TotalsOut } from '../../modules/test-runs/index.js';
import { loadCallTools, loadToolsByIds } from '../../modules/tools/index.js';
import { buildLlm, checkVendorTargets } from '../call/session-config.js';
import type { VendorAccess } from '../providers/speech-providers.js';
import { runConversation, Stopped, type Speaker } from './conversation.js';
import { askJudge } from './judge.js';
import { addUsage, emptyUsage, modelOf } from './models.js';
import { SimulatedUser } from './simulated-user.js';

// A whole test run: the assistant loaded as a call loads it (settings, enabled tools and playbooks, the prompt rendered
// with the run's variables and contact), then each repetition run as a conversation and judged, its result stored as
// it finishes, and the totals and pass rate at the end. A run that cannot start (assistant or playbook deleted, no
// credential for its model) fails with the reason.

export interface TestRunDeps {
  prisma: PrismaClient;
  access: VendorAccess;
  /** Opens the tools' stored credentials, for the tools that run for real. */
  secrets: SecretBox;
  allowPrivateToolTargets: boolean;
  /** Knowledge search for assistants with RAG on; default: the process's (agent/call/knowledge.ts). */
  knowledge?: KnowledgeSearch;
}

/** The simulated user answers with some variety, as people do; the judge answers the same way every time. */
const SIMULATED_USER_SAMPLING = { temperature: 0.7, maxTokens: 300 };
const JUDGE_SAMPLING = { temperature: 0, maxTokens: 300 };
/**
 * Up to 3 repetitions of a run at once: a run of 10 takes about a third of the time, and a vendor sees at most 3
 * conversations of one run together (6 per worker at its 2 runs), well inside any paid tier's rate limits.
 */
export const REPETITION_CONCURRENCY = 3;

class CannotRun extends Error {}

interface Loaded {
  settings: AssistantSettings;
  prompt: string;
  welcome: string;
  values: TemplateValues;
  tools: Awaited<ReturnType<typeof loadCallTools>>;
  playbooks: CallPlaybook[];
  startInPlaybook: number | undefined;
}

async function load(deps: TestRunDeps, run: ClaimedRun): Promise<Loaded> {
  const { prisma } = deps;
  // A run tests the assistant's draft when it has one, unless it asks for the current version (`use_draft: false`).
  const draft = run.request.use_draft !== false;
  const loaded = run.assistantId === null ? null : await loadAssistantVersioned(prisma, run.organizationId, run.assistantId, deps.secrets, { draft });
  if (!loaded || run.assistantId === null) throw new CannotRun('the assistant no longer exists');
  const stored = loaded.settings;
  // The run records the version it tests, as a call does.
  await prisma.testRun.updateMany({
    where: { id: run.id, organizationId: run.organizationId },
    data: { assistantVersion: loaded.version, draft: loaded.draft },
  });
  const settings = AssistantSettings.parse(stored);
  try {
    // Fails now, with the variable to set or the URL refused, rather than in the first turn.
    await buildLlm(settings, deps.access);
    await checkVendorTargets(settings, deps.access);
  } catch (error) {
    throw new CannotRun(error instanceof Error ? error.message : String(error));
  }
  const [tools, playbooks, contact] = await Promise.all([
    // A draft's tools are its own list: not assigned until it is published.
    loaded.draft
      ? loadToolsByIds(prisma, deps.secrets, run.organizationId, stored.assigned_tools)
      : loadCallTools(prisma, deps.secrets, run.organizationId, run.assistantId),
    loadCallPlaybooks(prisma, run.organizationId, run.assistantId, deps.secrets),
    loadContactFields(prisma, run.organizationId, run.request.contact_id),
  ]);
  let startInPlaybook: number | undefined;
  if (run.playbookId !== null) {
    const playbook = await loadPlaybookForRun(prisma, run.organizationId, run.playbookId, deps.secrets);
    if (!playbook) throw new CannotRun('the playbook no longer exists');
    startInPlaybook = playbooks.findIndex((p) => p.id === playbook.id);
    if (startInPlaybook < 0) startInPlaybook = playbooks.push(playbook) - 1;
  }
  const values: TemplateValues = { variables: run.request.variables, contact };
  const prompt = renderPrompt(settings.llm_settings.system_prompt ?? DEFAULT_SYSTEM_PROMPT, values).text;
  const welcome = renderTemplate(settings.llm_settings.welcome_message ?? '', values, 'speech').text;
  return { settings, prompt, welcome, values, tools, playbooks, startInPlaybook };
}

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export function totalsOf(results: RepetitionOut[]): TotalsOut {
  const usage = { assistant: emptyUsage(), simulated_user: emptyUsage(), judge: emptyUsage(), total: emptyUsage() };
  for (const r of results) {
    addUsage(usage.assistant, r.usage.assistant);
    addUsage(usage.simulated_user, r.usage.simulated_user);
    addUsage(usage.judge, r.usage.judge);
  }
  for (const part of [usage.assistant, usage.simulated_user, usage.judge]) addUsage(usage.total, part);
  const latencies = results.flatMap((r) => r.turns.map((t) => t.latency_ms)).sort((a, b) => a - b);
  return {
    repetitions: results.length,
    passed: results.filter((r) => r.passed).length,
    usage,
    latency_ms: { p50: percentile(latencies, 50), p95: percentile(latencies, 95), max: latencies.at(-1) ?? null },
  };
}

/**
 * Runs what is left of the run (a run taken over runs only the repetitions not stored yet), up to
 * REPETITION_CONCURRENCY at once, calling `progress` with every repetition finished so far each time one finishes;
 * `progress` answering false (the run is no longer this worker's) stops it.
 */
export async function executeTestRun(
  deps: TestRunDeps,
  run: ClaimedRun,
  signal: AbortSignal,
  progress: (results: RepetitionOut[]) => Promise<boolean>,
  options: { onSessionClosing?: (closed: Promise<unknown>) => void } = {},
): Promise<RunOutcome> {
  let loaded: Loaded;
  try {
    loaded = await load(deps, run);
  } catch (error) {
    if (error instanceof CannotRun) return { status: 'failed', results: run.results, error: error.message, totals: null };
    throw error;
  }
  const { request } = run;
  const { settings } = loaded;
  let judge: llm.LLM | undefined;
  // Stops the other repetitions when one cannot go on (the run was stopped, or a fault of ours).
  const halt = new AbortController();
  const stop = () => halt.abort();
  signal.addEventListener('abort', stop, { once: true });

  const repeatOnce = async (repetition: number): Promise<RepetitionOut> => {
    const simulated = request.simulated_user;
    let speaker: Speaker;
    if (simulated) {
      const model = await modelOf(simulated.model, settings, deps.access, SIMULATED_USER_SAMPLING);
      speaker = {
        kind: 'simulated',
        user: new SimulatedUser(model, simulated.persona, simulated.goal),
        firstMessage: simulated.first_message,
        maxTurns: simulated.max_turns,
        assistantSpeaksFirst: simulated.assistant_speaks_first,
      };
    } else {
      speaker = { kind: 'script', turns: request.script ?? [] };
    }
    // The reply's prompt as in a call: the assistant's knowledge passages and its budgets.
    const prompt =
      run.assistantId === null
        ? undefined
        : turnPromptOf(settings, {
            prisma: deps.prisma,
            knowledge: deps.knowledge ?? processKnowledge(deps.prisma, deps.access),
            organizationId: run.organizationId,
            assistantId: run.assistantId,
            model: await modelOf(null, settings, deps.access, {}),
          });
    const { record: conversation, closed } = await runConversation({
      prompt: loaded.prompt,
      turnPrompt: prompt,
      settings,
      access: deps.access,
      welcome: loaded.welcome,
      tools: loaded.tools,
      playbooks: loaded.playbooks,
      ...(loaded.startInPlaybook !== undefined ? { startInPlaybook: loaded.startInPlaybook } : {}),
      policy: {
        mocks: request.tool_mocks,
        useRealTools: request.use_real_tools,
        values: { variables: loaded.values.variables, contact: loaded.values.contact },
        allowPrivateTargets: deps.allowPrivateToolTargets,
      },
      speaker,
      signal: halt.signal,
    });
    options.onSessionClosing?.(closed);
    const judgeUsage = emptyUsage();
    const assertions = await judgeAll(request.assertions, conversation, async (question) => {
      judge ??= await modelOf(request.judge_model, settings, deps.access, JUDGE_SAMPLING);
      const answer = await askJudge(judge, question, conversation, halt.signal);
      addUsage(judgeUsage, answer.usage);
      return { passed: answer.passed, reason: answer.reason };
    });
    const { userTurns: _turns, usage, ...recorded } = conversation;
    return {
      repetition,
      passed: conversation.error === null && assertions.every((a) => a.passed),
      ...recorded,
      assertions,
      usage: { ...usage, judge: judgeUsage },
    };
  };

  const results = [...run.results];
  const stored = new Set(results.map((r) => r.repetition));
  const pending = Array.from({ length: request.repeat }, (_, i) => i + 1).filter((n) => !stored.has(n));
  // Progress is written one snapshot at a time, each holding every repetition finished before it.
  let writes: Promise<unknown> = Promise.resolve();
  const lane = async () => {
    for (let repetition = pending.shift(); repetition !== undefined && !halt.signal.aborted; repetition = pending.shift()) {
      const result = await repeatOnce(repetition);
      results.push(result);
      results.sort((a, b) => a.repetition - b.repetition);
      const snapshot = [...results];
      const write = writes.then(() => progress(snapshot));
      writes = write.catch(() => {});
      // Cancelled, or taken over after the lease lapsed: stop without writing anything more.
      if (!(await write)) throw new Stopped('the run is no longer this worker’s');
    }
  };
  // The first failure is the one reported: the lanes it stopped fail after it, as stopped.
  let failure: { error: unknown } | undefined;
  await Promise.all(
    Array.from({ length: Math.min(REPETITION_CONCURRENCY, pending.length) }, () =>
      lane().catch((error: unknown) => {
        failure ??= { error };
        stop();
      }),
    ),
  );
  signal.removeEventListener('abort', stop);
  if (failure) throw failure.error;
  const totals = totalsOf(results);
  return { status: 'completed', results, passRate: results.length === 0 ? 0 : totals.passed / results.length, totals };
}
