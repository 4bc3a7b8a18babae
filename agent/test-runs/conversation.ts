import { voice } from '@livekit/agents';
import { settledWithin, withTimeout } from '../../lib/async.js';
import type { AssistantSettings } from '../../modules/assistants/index.js';
import type { CallPlaybook } from '../../modules/playbooks/index.js';
import type { RepetitionOut, UsageOut } from '../../modules/test-runs/index.js';
import type { CallTool } from '../../modules/tools/index.js';
import { buildLlm } from '../call/session-config.js';
import type { VendorAccess } from '../providers/speech-providers.js';
import { buildAssistantAgent } from '../call/assistant-agent.js';
import { CollectedValues } from '../call/collected-values.js';
import type { TurnPrompt } from '../call/turn-prompt.js';
import { addUsage, emptyUsage } from './models.js';
import type { SimulatedUser } from './simulated-user.js';
import { openMcpServers } from '../call/mcp-tools.js';
import { testRunTools, type ToolPolicy } from './tool-mocks.js';

// One repetition of a test run: a text-only AgentSession (no audio in or out, no STT, no TTS) with the assistant's LLM
// and agent, driven turn by turn with `session.run({ userInput })`. Every message, tool call, latency and the LLM's
// token usage (the framework's metrics events) is recorded as it happens.

/**
 * One user turn may take this long to be answered: two LLM attempts of 10 s each around a tool of up to 30 s, and a
 * second round after the tool's answer, fit in 90 s; past it the model or the tool is stuck.
 */
export const TURN_TIMEOUT_MS = 90_000;
/** Closing a text session takes milliseconds; 2 s bounds it on a stuck one. */
const CLOSE_TIMEOUT_MS = 2_000;
/** One retry per LLM request, as in a call. */
const LLM_CONN_OPTIONS = { maxRetry: 1, retryIntervalMs: 500, timeoutMs: 10_000 };

export type Speaker =
  | { kind: 'script'; turns: string[] }
  | { kind: 'simulated'; user: SimulatedUser; firstMessage: string | null; maxTurns: number; assistantSpeaksFirst: boolean };

export interface ConversationSpec {
  settings: AssistantSettings;
  access: VendorAccess;
  /** The assistant's prompt and welcome, rendered with the run's variables and contact. */
  prompt: string;
  welcome: string;
  tools: CallTool[];
  playbooks: CallPlaybook[];
  startInPlaybook?: number;
  policy: ToolPolicy;
  speaker: Speaker;
  signal: AbortSignal;
  /** Knowledge passages and prompt budgets for each reply, as in a call. */
  turnPrompt?: TurnPrompt | undefined;
}

export type ConversationRecord = Omit<RepetitionOut, 'repetition' | 'passed' | 'assertions' | 'usage'> & {
  userTurns: number;
  usage: { assistant: UsageOut; simulated_user: UsageOut };
};

class Stopped extends Error {}

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * Runs the conversation; answers its record as soon as the last reply is in, and `closed`, which settles once the
 * session has closed. Closing takes half a second in @livekit/agents 1.9 whatever the session did (it commits a last
 * user turn after a 500 ms wait meant for audio), four fifths of a 10-turn run against an instant model: the record
 * does not wait for it.
 */
export async function runConversation(spec: ConversationSpec): Promise<{ record: ConversationRecord; closed: Promise<unknown> }> {
  const record: ConversationRecord = {
    ended_by: 'script',
    transcript: [],
    tool_calls: [],
    collected: {},
    turns: [],
    usage: { assistant: emptyUsage(), simulated_user: emptyUsage() },
    error: null,
    userTurns: 0,
  };
  // The mcp tools' servers, connected for this conversation: their tools are offered as in a call.
  const mcp = await openMcpServers(spec.tools, { allowPrivateTargets: spec.policy.allowPrivateTargets, signal: spec.signal });
  const tools = testRunTools(spec.policy, mcp);
  const collected = new CollectedValues();
  const session = new voice.AgentSession({
    llm: await buildLlm(spec.settings, spec.access),
    userData: { customSettings: spec.settings.custom_settings ?? {} },
    connOptions: { llmConnOptions: LLM_CONN_OPTIONS, maxUnrecoverableErrors: 0 },
  });
  let turn = 0;
  let ttftMs: number | null = null;
  // Settles with the reason the session closed, should it close under a turn (an LLM that failed for good).
  let closedWith: ((error: Error) => void) | undefined;
  const closed = new Promise<never>((_, reject) => (closedWith = reject));
  closed.catch(() => {});
  session.on(voice.AgentSessionEventTypes.ConversationItemAdded, ({ item }) => {
    if (item.type !== 'message' || (item.role !== 'user' && item.role !== 'assistant')) return;
    const text = item.textContent ?? '';
    if (text.trim()) record.transcript.push({ role: item.role, text, turn });
  });
  session.on(voice.AgentSessionEventTypes.FunctionToolsExecuted, (ev) => {
    ev.functionCalls.forEach((fc, i) => {
      const output = ev.functionCallOutputs[i];
      record.tool_calls.push({
        turn,
        name: fc.name,
        arguments: parseJson(fc.args),
        output: output ? parseJson(output.output) : null,
        mocked: tools.mocked(fc.callId),
        is_error: output?.isError ?? false,
      });
    });
  });
  session.on(voice.AgentSessionEventTypes.MetricsCollected, ({ metrics }) => {
    if (metrics.type !== 'llm_metrics') return;
    ttftMs ??= Math.round(metrics.ttftMs);
    addUsage(record.usage.assistant, {
      prompt_tokens: metrics.promptTokens,
      completion_tokens: metrics.completionTokens,
      total_tokens: metrics.totalTokens,
      requests: 1,
    });
  });
  // A model that failed after its retries and fallbacks: the framework ends the turn without a reply (and closes the
  // session after), so the turn is failed here rather than read as an assistant that said nothing.
  let failure: Error | undefined;
  session.on(voice.AgentSessionEventTypes.Error, (ev) => {
    if (ev.error.recoverable) return;
    const error = 'error' in ev.error ? ev.error.error : undefined;
    failure ??= error instanceof Error ? error : new Error(`the session failed: ${ev.error.type}`);
    closedWith?.(failure);
  });
  session.on(voice.AgentSessionEventTypes.Close, (ev) => {
    const error = ev.error && 'error' in ev.error ? ev.error.error : undefined;
    closedWith?.(error instanceof Error ? error : new Error(ev.error ? `the session closed: ${ev.error.type}` : 'the session closed'));
  });
  const stopped = new Promise<never>((_, reject) => {
    const stop = () => reject(new Stopped('the run was stopped'));
    if (spec.signal.aborted) stop();
    else spec.signal.addEventListener('abort', stop, { once: true });
  });
  stopped.catch(() => {});

  /** Waits for what the assistant does, bounded, and records the turn's latency. */
  const answered = async (work: () => Promise<unknown>) => {
    const started = performance.now();
    ttftMs = null;
    const replied = await withTimeout(Promise.race([work().then(() => true), closed, stopped]), TURN_TIMEOUT_MS);
    if (replied === undefined) throw new Error(`no reply within ${TURN_TIMEOUT_MS / 1000} s`);
    record.turns.push({ turn, latency_ms: Math.round(performance.now() - started), llm_ttft_ms: ttftMs });
    if (failure) throw failure;
  };
  const say = async (text: string) => {
    turn += 1;
    record.userTurns = turn;
    await answered(() => session.run({ userInput: text }).wait());
  };
  const lastReply = () =>
    record.transcript
      .filter((t) => t.role === 'assistant' && t.turn === turn)
      .map((t) => t.text)
      .join(' ');

  try {
    await Promise.race([
      session.start({
        agent: buildAssistantAgent({
          instructions: spec.prompt,
          tools: spec.tools,
          playbooks: spec.playbooks,
          toolsFor: tools.toolsFor,
          collected,
          prompt: spec.turnPrompt,
          ...(spec.startInPlaybook !== undefined ? { startInPlaybook: spec.startInPlaybook } : {}),
        }),
        record: false,
      }),
      closed,
      stopped,
    ]);
    const speaker = spec.speaker;
    // As a call opens: the welcome message when the assistant has one, else a reply written from the prompt when asked.
    if (spec.welcome.trim()) await answered(() => session.say(spec.welcome).waitForPlayout());
    else if (speaker.kind === 'simulated' && speaker.assistantSpeaksFirst) await answered(() => session.generateReply().waitForPlayout());
    if (speaker.kind === 'script') {
      for (const line of speaker.turns) {
        await say(line);
        if (tools.ended) {
          record.ended_by = 'assistant_ended';
          break;
        }
      }
    } else {
      record.ended_by = 'max_turns';
      const user = speaker.user;
      if (turn === 0 && record.transcript.length > 0) user.heard(lastReply());
      while (turn < speaker.maxTurns) {
        let line: string;
        let done = false;
        if (turn === 0 && speaker.firstMessage !== null) {
          line = speaker.firstMessage;
          user.said(line);
        } else {
          const next = await Promise.race([user.next(spec.signal), stopped]);
          addUsage(record.usage.simulated_user, next.usage);
          line = next.text;
          done = next.done;
        }
        if (line) {
          await say(line);
          user.heard(lastReply());
        }
        if (tools.ended) {
          record.ended_by = 'assistant_ended';
          break;
        }
        if (done || !line) {
          record.ended_by = 'user_done';
          break;
        }
      }
    }
  } catch (error) {
    if (error instanceof Stopped) {
      await settledWithin(session.close(), CLOSE_TIMEOUT_MS);
      await mcp.close();
      throw error;
    }
    record.ended_by = 'error';
    record.error = error instanceof Error ? error.message : String(error);
  }
  const sessionClosed = settledWithin(session.close(), CLOSE_TIMEOUT_MS).finally(() => mcp.close());
  record.collected = collected.record() ?? {};
  return { record, closed: sessionClosed };
}

export { Stopped };
