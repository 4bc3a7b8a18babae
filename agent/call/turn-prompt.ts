import { llm, voice } from '@livekit/agents';
import type { TurnRetrieval } from '../../modules/calls/index.js';
import { estimateTokens, type SearchResult } from '../../modules/knowledge/index.js';
import type { HistorySummary } from './history-summary.js';
import { fitPrompt, type PromptBudget } from './prompt-budget.js';
import { listen, type SessionEvents } from './session-events.js';
import { withTimeout } from '../../lib/async.js';
import { inSpan, traceContext, type Context } from '../../lib/tracing/index.js';

// Each reply's prompt, made in the framework's user-turn-completed hook: the knowledge passages for what the caller
// just said, and the conversation cut to the budgets (prompt-budget.ts). Retrieval starts on the recogniser's final
// words, while endpointing still waits to see if the caller goes on, so by the time the turn ends it is usually done;
// the reply waits for it at most RETRIEVAL_TIMEOUT_MS more, then goes without passages rather than late. The query is
// the caller's own words (with their previous turn when the new one is a short follow-up: "and on Sundays?"), not a
// model's rewrite, which would cost a model round trip on every turn. docs/knowledge.md, "In a call".

/** 250 ms past the end of the turn: a reply later than that is noticed; one without passages is merely less informed. */
export const RETRIEVAL_TIMEOUT_MS = 250;
/** A turn shorter than this many words leans on the one before it. */
const FOLLOW_UP_WORDS = 6;

export type Search = (query: string, signal: AbortSignal) => Promise<SearchResult>;

export interface TurnPromptOptions {
  budget: PromptBudget;
  /** Searches the assistant's knowledge; absent when RAG is off or nothing is attached. */
  search?: Search | undefined;
  /** The `summarize` strategy's background summary. */
  summary?: HistorySummary | undefined;
  timeoutMs?: number;
}

interface Pending {
  key: string;
  query: string;
  startedAt: number;
  result: Promise<SearchResult | Error>;
  abort: AbortController;
}

const normal = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

export class TurnPrompt {
  readonly #options: TurnPromptOptions;
  readonly #timeoutMs: number;
  /** The caller's previous turn, for a short follow-up's query. */
  #previousTurn = '';
  /** The final words heard in the turn under way. */
  #heard: string[] = [];
  #pending: Pending | undefined;
  #record: TurnRetrieval | undefined;
  /** The call's trace: searches start from the recogniser's events, outside any span of the call's own. */
  readonly #trace: Context;

  constructor(options: TurnPromptOptions) {
    this.#options = options;
    this.#trace = traceContext.active();
    this.#timeoutMs = options.timeoutMs ?? RETRIEVAL_TIMEOUT_MS;
  }

  /** Starts retrieval on the caller's final words as they come. */
  attach(session: SessionEvents<voice.AgentSessionEventTypes.UserInputTranscribed>): () => void {
    if (!this.#options.search) return () => undefined;
    return listen(session, voice.AgentSessionEventTypes.UserInputTranscribed, (ev) => {
      if (!ev.isFinal || !ev.transcript.trim()) return;
      this.#heard.push(ev.transcript.trim());
      this.#start(this.#heard.join(' '));
    });
  }

  /** The hook: passages and budgets applied to this reply's copy of the conversation. */
  async prepare(chatCtx: llm.ChatContext, message: llm.ChatMessage): Promise<void> {
    const said = message.textContent ?? '';
    this.#heard = [];
    let result: SearchResult | undefined;
    if (this.#options.search && said.trim()) {
      const turnEnded = performance.now();
      const pending = this.#start(said);
      // Undefined when the passages are not in within the wait: the reply goes without them, and the search is stopped.
      const waited = await withTimeout(pending.result, this.#timeoutMs);
      const waitedMs = round(performance.now() - turnEnded);
      if (waited === undefined) pending.abort.abort();
      result = waited instanceof Error ? undefined : waited;
      this.#record = {
        query: pending.query,
        ms: round(performance.now() - pending.startedAt),
        waited_ms: waitedMs,
        timed_out: waited === undefined,
        error: waited instanceof Error ? waited.message : (result?.vector_error ?? null),
        hits: [],
      };
      this.#pending = undefined;
    }
    this.#previousTurn = said;
    const fitted = fitPrompt(chatCtx.items, estimateTokens(said) + 4, result?.hits ?? [], this.#options.budget, this.#options.summary?.text);
    if (this.#options.budget.historyStrategy === 'summarize' && fitted.dropped.length > 0) this.#options.summary?.update(fitted.dropped);
    if (fitted.passageText) fitted.items.push(llm.ChatMessage.create({ role: 'system', content: [fitted.passageText] }));
    chatCtx.items = fitted.items;
    if (this.#record && result) {
      const inPrompt = new Set(fitted.passages.map((h) => h.chunk_id));
      this.#record.hits = result.hits.map((h) => ({
        document_id: h.document_id,
        chunk_id: h.chunk_id,
        document_name: h.document_name,
        heading_path: h.heading_path,
        fused_score: h.fused_score,
        lexical_score: h.lexical_score,
        vector_score: h.vector_score,
        relevance: h.relevance,
        in_prompt: inPrompt.has(h.chunk_id),
      }));
    }
  }

  /** What the reply being recorded was given; taken once. */
  takeRetrieval(): TurnRetrieval | undefined {
    const record = this.#record;
    this.#record = undefined;
    return record;
  }

  /** The search for these words: the one under way when it is for the same words, else a new one. */
  #start(words: string): Pending {
    const query = words.split(/\s+/).length < FOLLOW_UP_WORDS && this.#previousTurn ? `${this.#previousTurn} ${words}` : words;
    const key = normal(query);
    if (this.#pending?.key === key) return this.#pending;
    this.#pending?.abort.abort();
    const abort = new AbortController();
    const search = this.#options.search!;
    const pending: Pending = {
      key,
      query,
      startedAt: performance.now(),
      abort,
      result: this.#search(search, query, abort.signal).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error)))),
    };
    this.#pending = pending;
    return pending;
  }

  /** One search, as a span of the call's trace saying what it found (never the words it searched for). */
  #search(search: Search, query: string, signal: AbortSignal): Promise<SearchResult> {
    return inSpan(
      'knowledge.retrieval',
      {},
      async (span) => {
        const result = await search(query, signal);
        span.setAttributes({ 'knowledge.hits': result.hits.length, 'knowledge.vector_index': result.vector_index });
        return result;
      },
      this.#trace,
    );
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
