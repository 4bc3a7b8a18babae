import type { Db } from '../../../prisma/client.js';
import { ValidationFailed } from '../../../lib/errors.js';
import { defaultSpec, ragSettingsOf, type DocumentIndex } from '../index-specs.js';
import type { DocumentSearch } from '../schemas.js';
import type { SearchResult } from './hybrid-search.js';
import type { KnowledgeSearch } from './knowledge-search.js';
import type { z } from 'zod';

// The retrieval debugger (POST /api/documents/search): the search a call would run, with every score and timing.

type SearchIn = z.output<typeof DocumentSearch>;

export async function searchDocuments(db: Db, knowledge: KnowledgeSearch, organizationId: number, input: SearchIn) {
  if ((input.assistant_id === undefined) === (input.document_ids === undefined)) {
    throw new ValidationFailed([
      {
        loc: ['body', input.assistant_id === undefined ? 'assistant_id' : 'document_ids'],
        msg: 'Send exactly one of assistant_id and document_ids',
        type: 'value_error',
      },
    ]);
  }
  if (input.assistant_id !== undefined && input.embedding_model !== undefined) {
    throw new ValidationFailed([{ loc: ['body', 'embedding_model'], msg: "An assistant's search uses its own embedding_model", type: 'value_error' }]);
  }
  let result: SearchResult;
  let spec = defaultSpec();
  let limit: number;
  let threshold: number;
  let searched: number;
  if (input.assistant_id !== undefined) {
    const found = await knowledge.forAssistant(organizationId, input.assistant_id, input.query, {
      limit: input.search_limit,
      similarityThreshold: input.similarity_threshold,
    });
    ({ result, spec } = found);
    limit = input.search_limit ?? found.rag.search_limit;
    threshold = input.similarity_threshold ?? found.rag.similarity_threshold;
    searched = found.documents;
  } else {
    const ids = input.document_ids!;
    spec = { ...spec, embeddingModel: input.embedding_model ?? (await commonModel(db, organizationId, ids)) ?? spec.embeddingModel };
    const defaults = ragSettingsOf({});
    limit = input.search_limit ?? defaults.search_limit;
    threshold = input.similarity_threshold ?? defaults.similarity_threshold;
    result = await knowledge.forDocuments(organizationId, ids, spec, input.query, { limit, similarityThreshold: threshold });
    searched = new Set(ids).size;
  }
  return {
    query: input.query,
    embedding_model: spec.embeddingModel,
    chunking: spec.key,
    similarity_threshold: threshold,
    search_limit: limit,
    documents_searched: searched,
    hits: result.hits,
    below_threshold: result.below_threshold,
    vector_error: result.vector_error,
    timings_ms: result.timings,
  };
}

/** The embedding model most of the documents are indexed with: the one whose vectors cover most of them. */
async function commonModel(db: Db, organizationId: number, ids: number[]): Promise<string | undefined> {
  const rows = await db.document.findMany({ where: { organizationId, id: { in: ids } }, select: { indexes: true } });
  const counts = new Map<string, number>();
  for (const row of rows) {
    const models = new Set(((Array.isArray(row.indexes) ? row.indexes : []) as unknown as DocumentIndex[]).map((i) => i.embedding_model));
    for (const model of models) counts.set(model, (counts.get(model) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
}
