// Text embeddings as the knowledge base uses them: one L2-normalised vector per text, from a model named by
// `rag_settings.embedding_model` (resolve.ts). docs/knowledge.md, "Embeddings".

export interface EmbedOptions {
  signal?: AbortSignal;
  /** A query is embedded alone and cached (query-cache.ts); documents come in batches. */
  purpose?: 'query' | 'document';
}

export interface Embedder {
  /** The setting's value: `local/use-lite`, `text-embedding-3-small`, `ollama/nomic-embed-text`. */
  readonly model: string;
  /** Known up front for the models named in resolve.ts; else learned from the first answer. */
  readonly dimensions: number | undefined;
  embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]>;
  close?(): Promise<void>;
}

/** Why texts were not embedded, in a sentence for people (it becomes a document's `error`); never holds a key. */
export class EmbeddingError extends Error {
  constructor(
    message: string,
    /** A vendor that may answer later (429, 5xx, a timeout): the job tries again soon. */
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = 'EmbeddingError';
  }
}

export function normalise(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  const norm = Math.sqrt(sum);
  if (norm === 0) return vector;
  for (let i = 0; i < vector.length; i++) vector[i] = vector[i]! / norm;
  return vector;
}
