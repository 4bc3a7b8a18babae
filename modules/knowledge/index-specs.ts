import type { Db } from '../../prisma/client.js';
import { RAGSettings } from './rag-settings.js';
import { chunkingKey, DEFAULT_CHUNKING, type ChunkingOptions } from './chunking.js';

// What a document must be indexed with: one chunk set per chunking setting and, on each, vectors of each embedding
// model, as the assistants it is attached to ask (their rag_settings). A document attached to none is indexed with
// the defaults, so the search debugger finds it by id. docs/knowledge.md.

export interface IndexSpec {
  chunking: ChunkingOptions;
  /** `recursive:1000:200`: the `chunking` of its chunks. */
  key: string;
  embeddingModel: string;
}

/** An index a document has, as its `indexes` column and the API show it. */
export interface DocumentIndex {
  chunking: string;
  embedding_model: string;
  chunk_count: number;
  token_count: number;
}

export function specOf(rag: Pick<RAGSettings, 'chunking_strategy' | 'chunk_size' | 'chunk_overlap' | 'embedding_model'>): IndexSpec {
  const chunking: ChunkingOptions = { strategy: rag.chunking_strategy, chunkSize: rag.chunk_size, chunkOverlap: rag.chunk_overlap };
  return { chunking, key: chunkingKey(chunking), embeddingModel: rag.embedding_model };
}

type RAGSettings = ReturnType<typeof RAGSettings.parse>;

/** The rag_settings stored on an assistant, with the defaults for anything missing or unreadable in an old row. */
export function ragSettingsOf(stored: unknown): RAGSettings {
  const parsed = RAGSettings.safeParse(stored ?? {});
  return parsed.success ? parsed.data : RAGSettings.parse({});
}

export function defaultSpec(): IndexSpec {
  return specOf(ragSettingsOf({}));
}

function unique(specs: IndexSpec[]): IndexSpec[] {
  const seen = new Map<string, IndexSpec>();
  for (const spec of specs) seen.set(`${spec.key}|${spec.embeddingModel}`, spec);
  return [...seen.values()];
}

/** The indexes a document needs now, the defaults' first when one of its assistants uses them. */
export async function requiredSpecs(db: Db, documentId: number): Promise<IndexSpec[]> {
  const rows = await db.$queryRaw<{ rag_settings: unknown }[]>`
    SELECT a.rag_settings FROM assistant_documents ad JOIN assistants a ON a.id = ad.assistant_id
    WHERE ad.document_id = ${documentId} ORDER BY ad.assistant_id`;
  if (rows.length === 0) return [defaultSpec()];
  const fallback = defaultSpec();
  return unique(rows.map((r) => specOf(ragSettingsOf(r.rag_settings)))).sort((a, b) => Number(same(b, fallback)) - Number(same(a, fallback)));
}

function same(a: IndexSpec, b: IndexSpec): boolean {
  return a.key === b.key && a.embeddingModel === b.embeddingModel;
}

export function hasIndex(indexes: unknown, spec: IndexSpec): boolean {
  return Array.isArray(indexes) && indexes.some((i: Partial<DocumentIndex>) => i.chunking === spec.key && i.embedding_model === spec.embeddingModel);
}
