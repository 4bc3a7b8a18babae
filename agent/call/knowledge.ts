import type { llm } from '@livekit/agents';
import type { PrismaClient } from '../../prisma/client.js';
import type { AssistantSettings } from '../../modules/assistants/index.js';
import type { VendorCredentials } from '../../lib/vendor-credentials.js';
import { KnowledgeSearch } from '../../modules/knowledge/index.js';
import { HistorySummary } from './history-summary.js';
import { TurnPrompt } from './turn-prompt.js';

// A call's knowledge: the process's one knowledge search (its vector cache serves every call of the process, so the
// second call of an assistant finds its vectors loaded), and the call's turn prompt built from the assistant's
// rag_settings. The budgets apply to every call; retrieval only where RAG is enabled.

const searches = new WeakMap<PrismaClient, KnowledgeSearch>();

export function processKnowledge(prisma: PrismaClient, credentials: VendorCredentials): KnowledgeSearch {
  let search = searches.get(prisma);
  if (!search) searches.set(prisma, (search = new KnowledgeSearch(prisma, { credentials })));
  return search;
}

export interface CallKnowledgeOptions {
  prisma: PrismaClient;
  knowledge: KnowledgeSearch;
  organizationId: number;
  assistantId: number | null;
  /** The call's model: it writes the `summarize` strategy's summaries. */
  model: llm.LLM;
  /** How long past the end of a turn its reply waits for the passages (turn-prompt.ts: 250 ms unless told). */
  retrievalTimeoutMs?: number | undefined;
}

export function turnPromptOf(settings: AssistantSettings, options: CallKnowledgeOptions): TurnPrompt {
  const rag = settings.rag_settings;
  const { knowledge, organizationId, assistantId } = options;
  const search =
    rag.enabled && assistantId !== null
      ? (query: string, signal: AbortSignal) => knowledge.forAssistant(organizationId, assistantId, query, { signal }).then((found) => found.result)
      : undefined;
  // Loaded while the call connects and the welcome plays, not on the caller's first question.
  if (search) void knowledge.warmAssistant(organizationId, assistantId!).catch(() => undefined);
  return new TurnPrompt({
    search,
    summary: rag.history_strategy === 'summarize' ? new HistorySummary(options.model) : undefined,
    budget: {
      historyStrategy: rag.history_strategy,
      maxHistoryTurns: rag.max_history_turns,
      contextWindowTokens: rag.context_window_tokens,
      contextBudget: rag.context_budget,
      maxPromptDocTokens: rag.max_prompt_doc_tokens,
      includeMetadata: rag.include_metadata,
    },
    timeoutMs: options.retrievalTimeoutMs,
  });
}
