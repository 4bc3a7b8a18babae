// The public face of modules/knowledge/: what code outside it (other modules, the API, the call runtime, the benchmarks)
// may use, and nothing else, so its other files can change without a search through both processes. Files inside the
// module import one another directly, never this one (docs/architecture.md, "Import rules").

export { estimateTokens } from './chunking.js';
export {
  createDocument,
  createUploadedDocument,
  deleteDocument,
  getDocument,
  getDocumentContent,
  listDocuments,
  replaceDocumentContent,
  reprocessDocument,
  updateDocument,
} from './documents.js';
export { closeLocalModel } from './embeddings/local.js';
export { cachedEmbedder } from './embeddings/query-cache.js';
// A conversion in the caller's own thread, which the parse benchmark times against the worker thread's.
export { convert } from './parse/convert.js';
export { toMarkdown } from './parse/index.js';
export { DOCX_MEDIA_TYPE, type SupportedMediaType } from './parse/media-types.js';
// Documents built in memory, which the benchmarks make their corpora from.
export { docxParagraph, docxTable, makeDocx, makePdf } from './parse/testing/fixtures.js';
export { processDocument } from './process-document.js';
export { claimDocuments, processingDeps, queueAssistantDocuments, startDocumentProcessing } from './processing.js';
export { RAGSettings } from './rag-settings.js';
export {
  DOCUMENT_BODY_LIMIT_BYTES,
  DOCUMENT_STATUSES,
  DocumentContent,
  DocumentContentUpdate,
  DocumentCreate,
  DocumentOut,
  type DocumentOutT,
  DocumentParams,
  DocumentSearch,
  DocumentUpdate,
  MAX_DOCUMENT_BYTES,
  SearchResultOut,
} from './schemas.js';
export { hybridSearch, type KnowledgeHit, type SearchResult } from './search/hybrid-search.js';
export { KnowledgeSearch } from './search/knowledge-search.js';
export { lexicalSearch } from './search/lexical.js';
export { MemoryVectors } from './search/memory-vectors.js';
export { detectPgvector, PgVectors } from './search/pgvector.js';
export { assistantScope } from './search/scope.js';
export { searchDocuments } from './search/search-request.js';
export { fromBytes } from './vectors.js';
