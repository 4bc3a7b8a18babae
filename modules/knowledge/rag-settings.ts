import { z } from 'zod';
import { int } from '../../lib/zod/int.js';

// An assistant's `rag_settings`: how the documents attached to it are indexed (chunking, embedding model), searched
// (how many passages, how alike) and fitted into each reply's prompt (the budgets, the history kept). They are the
// assistant's settings, but knowledge is what reads them, to index and to search, so they are defined here and the
// assistant's settings include them.

/**
 * The offline model, bundled with the service: knowledge works with no key and no text leaves the machine. OpenAI's
 * `text-embedding-3-small` (or any OpenAI-compatible server) finds paraphrases better; docs/knowledge.md compares them.
 */
export const DEFAULT_EMBEDDING_MODEL = 'local/use-lite';

export const RAGSettings = z
  .strictObject({
    enabled: z.boolean().default(false),
    auto_process: z.boolean().default(true),
    chunking_strategy: z.enum(['recursive', 'fixed', 'sentence', 'markdown']).default('recursive'),
    chunk_size: int().min(100).max(8000).default(1000),
    chunk_overlap: int().min(0).max(4000).default(200),
    embedding_model: z.string().max(200).default(DEFAULT_EMBEDDING_MODEL),
    search_limit: int().min(1).max(50).default(3),
    similarity_threshold: z.number().min(0).max(1).default(0.7),
    include_metadata: z.boolean().default(true),
    context_budget: int().min(0).max(1_000_000).default(8000),
    context_window_tokens: int().min(256).max(2_000_000).default(4000),
    max_prompt_doc_tokens: int().min(0).max(1_000_000).default(2000),
    history_strategy: z.enum(['sliding_window', 'summarize', 'full']).default('sliding_window'),
    max_history_turns: int().min(1).max(1000).default(20),
  })
  .meta({ id: 'RAGSettings' });
