import { log, voice, type llm } from '@livekit/agents';
import type { StoredTurn, ToolCallEntry, ToolMessageKind, TranscriptEntry, TurnRetrieval } from '../../modules/calls/index.js';
import { turnLatency } from '../turn/metrics.js';
import { observeTurnLatency } from '../../lib/metrics/index.js';
import { CONTINUES_TURN } from '../turn/turn-taking.js';
import type { TurnDecision } from '../turn/turn-signals.js';
import { listen, type SessionEvents } from './session-events.js';

// The transcript as the call goes: each user and assistant turn with its start and end on the call's clock, whether it
// was interrupted, an assistant turn's latency, and the tools the assistant called before it. Each turn is stored the
// moment it is spoken, so a call whose process dies keeps what was said.

export interface TranscriptOptions {
  /** Epoch ms of the call's start: turn times are ms from it. */
  startedAt: number;
  /**
   * Stores a turn at its position, in the order spoken. A failed write is logged and left to the end of the call,
   * which writes every turn again.
   */
  store: (position: number, turn: StoredTurn) => Promise<void>;
  /** Fields that name the call in the log. */
  logFields?: Record<string, unknown>;
  /** The end-of-turn decision behind the reply being recorded, if any (agent/turn/turn-taking.ts). */
  decisionForReply?: () => TurnDecision | undefined;
  /** The knowledge passages the reply being recorded was given (agent/call/turn-prompt.ts). */
  retrievalForReply?: () => TurnRetrieval | undefined;
  /** Which of a tool's spoken messages an assistant turn of this text is, if any (agent/call/tool-runs.ts). */
  toolMessageOf?: (text: string) => ToolMessageKind | undefined;
  /** The language a turn of this role is being spoken in (agent/call/languages.ts). */
  languageOf?: (role: 'user' | 'assistant') => string | undefined;
  /** An HTTP tool call's status and duration, by the framework's tool call id (agent/call/tools.ts). */
  toolCallDetail?: (callId: string) => Pick<ToolCallEntry, 'http_status' | 'duration_ms'> | undefined;
  /** When a caller's turn was spoken, where the framework's message does not say (a speech-to-speech call: realtime-turns.ts). */
  userTurnOf?: (item: llm.ChatMessage) => { startMs: number; stopMs: number } | undefined;
  /** A reply's latency, where the framework's message does not carry it (a speech-to-speech call). */
  replyLatencyOf?: (item: llm.ChatMessage) => Record<string, number> | undefined;
}

export interface Transcript {
  /** What was said, for the analysis and for whoever ran the call. */
  spoken: TranscriptEntry[];
  /** Every turn to store, with latencies; tool calls made after the last reply are on an empty assistant turn of their own. */
  turns: StoredTurn[];
}

export interface TranscriptCapture {
  /** Stops listening, waits for the turns being stored, and answers the transcript of a call that ended at `endedAt`. */
  close(endedAt: number): Promise<Transcript>;
}

type TranscriptEvents = voice.AgentSessionEventTypes.ConversationItemAdded | voice.AgentSessionEventTypes.FunctionToolsExecuted;

export function captureTranscript(session: SessionEvents<TranscriptEvents>, options: TranscriptOptions): TranscriptCapture {
  const turns: StoredTurn[] = [];
  const pendingToolCalls: ToolCallEntry[] = [];
  /**
   * The caller's last turn not yet answered: its metrics hold the end-of-utterance delay its reply is given. The
   * message is kept, not its metrics: the framework may give it a new metrics object after it joined the conversation.
   */
  let unanswered: { message: llm.ChatMessage; startMs: number } | undefined;
  const relMs = (epochMs: number) => Math.max(Math.round(epochMs - options.startedAt), 0);
  let writes: Promise<void> = Promise.resolve();
  const write = (position: number) => {
    const turn = turns[position]!;
    writes = writes.then(() =>
      options.store(position, turn).catch((error: unknown) => log().warn({ ...options.logFields, err: error }, 'turn not stored yet')),
    );
  };

  // In the order spoken: a reply the caller talked over joins the conversation when it stops, after the caller's turn
  // that stopped it, but it began first. The turns after it move down one place, stored again.
  const insertInOrder = (turn: StoredTurn) => {
    const position = turns.findLastIndex((t) => t.start_ms <= turn.start_ms) + 1;
    turns.splice(position, 0, turn);
    for (let p = position; p < turns.length; p++) write(p);
  };

  const stops = [
    listen(session, voice.AgentSessionEventTypes.FunctionToolsExecuted, (ev) => {
      ev.functionCalls.forEach((fc, i) => {
        const output = ev.functionCallOutputs[i];
        pendingToolCalls.push({
          name: fc.name,
          arguments: parseJson(fc.args),
          output: output ? parseJson(output.output) : null,
          is_error: output?.isError ?? false,
          at_ms: relMs(fc.createdAt),
          ...options.toolCallDetail?.(fc.callId),
        });
      });
    }),
    listen(session, voice.AgentSessionEventTypes.ConversationItemAdded, ({ item }) => {
      if (item.type !== 'message' || (item.role !== 'user' && item.role !== 'assistant')) return;
      const text = item.textContent ?? '';
      if (!text.trim()) return;
      const m = item.metrics;
      // A speech-to-speech call's own record of when the caller spoke comes first: a vendor plugin may date the turn
      // by when its first message arrived (Google's), which is not when the caller started.
      const spoken = item.role === 'user' && m.stoppedSpeakingAt === undefined ? options.userTurnOf?.(item) : undefined;
      const start = spoken?.startMs ?? (m.startedSpeakingAt !== undefined ? m.startedSpeakingAt * 1000 : item.createdAt);
      const stop = m.stoppedSpeakingAt !== undefined ? m.stoppedSpeakingAt * 1000 : (spoken?.stopMs ?? Date.now());
      if (item.role === 'user') unanswered = { message: item, startMs: relMs(start) };
      const language = options.languageOf?.(item.role);
      // A tool's message ("one moment, let me check") is said while the reply waits for the tool: it answers nothing,
      // so it neither takes the reply's latency nor the tool calls the reply reports.
      const toolMessage = item.role === 'assistant' ? options.toolMessageOf?.(text) : undefined;
      if (toolMessage) {
        const turn: StoredTurn = {
          role: 'assistant',
          text,
          start_ms: relMs(start),
          end_ms: relMs(stop),
          interrupted: item.interrupted,
          metrics: null,
          tool_message: toolMessage,
          ...(language ? { language } : {}),
        };
        return insertInOrder(turn);
      }
      // A reply answers the caller's last turn if it began after it; one the caller talked over began before it.
      const answers = item.role === 'assistant' && unanswered !== undefined && relMs(start) >= unanswered.startMs ? unanswered : undefined;
      // The rest of a turn the caller was cut off in: the part stored before becomes the whole turn, where it was.
      const continued = item.role === 'user' && item.extra[CONTINUES_TURN] === true ? turns.findLastIndex((t) => t.role === 'user') : -1;
      const decision = answers ? options.decisionForReply?.() : undefined;
      const retrieval = answers ? options.retrievalForReply?.() : undefined;
      const turn: StoredTurn = {
        role: item.role,
        text,
        start_ms: continued >= 0 ? turns[continued]!.start_ms : relMs(start),
        end_ms: relMs(stop),
        interrupted: item.interrupted,
        metrics:
          item.role === 'assistant' ? replyMetrics(turnLatency(m, answers?.message.metrics), answers ? options.replyLatencyOf?.(item) : undefined) : null,
        // The tools the assistant called before this reply, with what they returned.
        ...(item.role === 'assistant' && pendingToolCalls.length > 0 ? { tool_calls: pendingToolCalls.splice(0) } : {}),
        ...(decision ? { turn_decision: decision } : {}),
        ...(retrieval ? { retrieval } : {}),
        ...(language ? { language } : {}),
      };
      if (answers) unanswered = undefined;
      observeTurnLatency(turn.metrics);
      if (continued >= 0) {
        turns[continued] = turn;
        write(continued);
        return;
      }
      insertInOrder(turn);
    }),
  ];

  return {
    async close(endedAt) {
      for (const stop of stops) stop();
      await writes;
      const spoken: TranscriptEntry[] = turns.map(({ metrics: _m, turn_decision: _d, retrieval: _r, ...t }) => t);
      // Tool calls after the last reply (the call ended before the assistant spoke again) still belong to the transcript.
      if (pendingToolCalls.length > 0) {
        const at = relMs(endedAt);
        turns.push({ role: 'assistant', text: '', start_ms: at, end_ms: at, interrupted: false, metrics: null, tool_calls: pendingToolCalls.splice(0) });
      }
      return { spoken, turns };
    },
  };
}

/** The framework's latency figures, completed with those measured outside it (a speech-to-speech call's). */
function replyMetrics(framework: Record<string, number> | null, measured: Record<string, number> | undefined): Record<string, number> | null {
  return measured ? { ...measured, ...framework } : framework;
}

/**
 * A tool's arguments or result as a value: the model sends arguments as JSON text (sometimes broken), and the framework
 * serialises a tool's return value to JSON (a string result arrives quoted), but passes an error's message as it is.
 */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
