import { llm } from '@livekit/agents';
import { estimateTokens, type KnowledgeHit } from '../../modules/knowledge/index.js';

// What one reply's prompt holds, within the budgets of rag_settings (docs/knowledge.md, "Budgets"):
// - retrieved passages up to `max_prompt_doc_tokens`, best first;
// - the conversation: `sliding_window` keeps the last `max_history_turns` turns, `summarize` the same with a summary
//   of what fell out in their place, `full` every turn; all three at most `context_window_tokens` of history;
// - the whole (instructions, history, passages, the caller's new words) at most `context_budget`: passages give way
//   first, from the last, then the oldest turns. The instructions and the caller's new words are never cut.
// A turn is a caller's message with everything after it up to the next one (the reply, tool calls with their results),
// so a tool call never loses its result. Tokens are estimated at 4 characters each. Only the reply's copy of the
// conversation is cut: the call's own history, and its transcript, keep everything.

export interface PromptBudget {
  historyStrategy: 'sliding_window' | 'summarize' | 'full';
  maxHistoryTurns: number;
  contextWindowTokens: number;
  contextBudget: number;
  maxPromptDocTokens: number;
  includeMetadata: boolean;
}

export function itemTokens(item: llm.ChatItem): number {
  if (item.type === 'message') return estimateTokens(item.textContent ?? '') + 4;
  if (item.type === 'function_call') return estimateTokens(item.name + item.args) + 4;
  if (item.type === 'function_call_output') return estimateTokens(item.output) + 4;
  return 0;
}

const sum = (items: llm.ChatItem[]) => items.reduce((n, i) => n + itemTokens(i), 0);

/** The passage as the model reads it: where it comes from (with `include_metadata`), then its text. */
export function passageText(hit: KnowledgeHit, index: number, includeMetadata: boolean): string {
  if (!includeMetadata) return `[${index + 1}]\n${hit.content}`;
  const where = [hit.document_name, ...hit.heading_path].join(' › ');
  const meta = Object.entries(hit.metadata).map(([k, v]) => `${k}: ${v}`);
  return `[${index + 1}] Source: ${where}${meta.length ? ` (${meta.join('; ')})` : ''}\n${hit.content}`;
}

const PREAMBLE =
  "Passages from the knowledge base that may answer the caller's next message. Use them when they do; say so when " +
  'they do not cover it rather than guess. Do not mention passages or a knowledge base to the caller.';

/** The passages that fit `maxTokens`, best first; a passage that does not fit is left out whole, never cut. */
export function fitPassages(hits: KnowledgeHit[], maxTokens: number, includeMetadata: boolean): { text: string; included: KnowledgeHit[] } {
  const parts: string[] = [];
  const included: KnowledgeHit[] = [];
  let used = estimateTokens(PREAMBLE);
  for (const hit of hits) {
    const text = passageText(hit, included.length, includeMetadata);
    const cost = estimateTokens(text) + 2;
    if (used + cost > maxTokens) continue;
    used += cost;
    parts.push(text);
    included.push(hit);
  }
  return { text: included.length ? `${PREAMBLE}\n\n${parts.join('\n\n')}` : '', included };
}

interface Split {
  /** Instructions and configuration at the head of the context: always kept. */
  head: llm.ChatItem[];
  /** Items before the caller's first message (the welcome), as a turn of their own. */
  turns: llm.ChatItem[][];
}

function split(items: llm.ChatItem[]): Split {
  const head: llm.ChatItem[] = [];
  let i = 0;
  for (; i < items.length; i++) {
    const item = items[i]!;
    if (item.type === 'message' && (item.role === 'system' || item.role === 'developer')) head.push(item);
    else break;
  }
  const turns: llm.ChatItem[][] = [];
  for (; i < items.length; i++) {
    const item = items[i]!;
    if (turns.length === 0 || (item.type === 'message' && item.role === 'user')) turns.push([item]);
    else turns[turns.length - 1]!.push(item);
  }
  return { head, turns };
}

export interface Fitted {
  items: llm.ChatItem[];
  /** Turns left out of this reply's prompt, oldest first: what a summary would cover. */
  dropped: llm.ChatItem[][];
  passages: KnowledgeHit[];
  passageText: string;
}

/**
 * The reply's context: `items` (the conversation before the caller's new message, instructions first) cut to the
 * budgets, with the passages that fit, and the summary of earlier turns in their place when there is one.
 */
export function fitPrompt(items: llm.ChatItem[], newMessageTokens: number, hits: KnowledgeHit[], budget: PromptBudget, summary?: string): Fitted {
  const { head, turns } = split(items);
  let kept = budget.historyStrategy === 'full' ? turns : turns.slice(Math.max(0, turns.length - budget.maxHistoryTurns));
  while (kept.length > 0 && sum(kept.flat()) > budget.contextWindowTokens) kept = kept.slice(1);
  let { text, included } = fitPassages(hits, budget.maxPromptDocTokens, budget.includeMetadata);
  const summaryItem =
    summary && kept.length < turns.length
      ? llm.ChatMessage.create({ role: 'system', content: [`Summary of the conversation before the turns below:\n${summary}`] })
      : undefined;
  const total = () => sum(head) + (summaryItem ? itemTokens(summaryItem) : 0) + sum(kept.flat()) + (text ? estimateTokens(text) + 4 : 0) + newMessageTokens;
  while (total() > budget.contextBudget && included.length > 0) {
    ({ text, included } = fitPassages(included.slice(0, -1), budget.maxPromptDocTokens, budget.includeMetadata));
  }
  while (total() > budget.contextBudget && kept.length > 0) kept = kept.slice(1);
  const dropped = turns.slice(0, turns.length - kept.length);
  return { items: [...head, ...(summaryItem ? [summaryItem] : []), ...kept.flat()], dropped, passages: included, passageText: text };
}
