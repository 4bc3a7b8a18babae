-- Knowledge retrieval: URL sources and their refresh, a document's metadata, chunk sets per chunking setting, a
-- full-text index over the chunks, and embeddings per chunk and model (docs/knowledge.md).
ALTER TABLE "documents" ADD COLUMN "source_url" TEXT;
ALTER TABLE "documents" ADD COLUMN "crawl" JSONB;
ALTER TABLE "documents" ADD COLUMN "refresh_interval_hours" INTEGER;
ALTER TABLE "documents" ADD COLUMN "fetched_at" TIMESTAMPTZ(3);
ALTER TABLE "documents" ADD COLUMN "next_refresh_at" TIMESTAMPTZ(3);
ALTER TABLE "documents" ADD COLUMN "metadata" JSONB NOT NULL DEFAULT '{}';
ALTER TABLE "documents" ADD COLUMN "indexes" JSONB NOT NULL DEFAULT '[]';
ALTER TABLE "documents" ADD COLUMN "index_version" INTEGER NOT NULL DEFAULT 0;
CREATE INDEX "documents_next_refresh_at_idx" ON "documents"("next_refresh_at");

-- Chunks of every document so far were cut with the defaults.
ALTER TABLE "document_chunks" ADD COLUMN "chunking" TEXT NOT NULL DEFAULT 'recursive:1000:200';
ALTER TABLE "document_chunks" ALTER COLUMN "chunking" DROP DEFAULT;
DROP INDEX "document_chunks_document_id_position_key";
CREATE UNIQUE INDEX "document_chunks_document_id_chunking_position_key" ON "document_chunks"("document_id", "chunking", "position");
-- The headings are part of what a chunk is about: "Refunds" finds the chunk under that heading, ranked above a passing
-- mention (weight A over B). array_to_string is only STABLE (for any array type); over text[] it cannot vary, so
-- this wrapper may be IMMUTABLE, which a generated column requires.
CREATE FUNCTION "chunk_search_vector"(heading_path TEXT[], content TEXT) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT setweight(to_tsvector('english'::regconfig, array_to_string(heading_path, ' ')), 'A') || setweight(to_tsvector('english'::regconfig, content), 'B') $$;
ALTER TABLE "document_chunks" ADD COLUMN "search_vector" tsvector GENERATED ALWAYS AS (chunk_search_vector("heading_path", "content")) STORED;
CREATE INDEX "document_chunks_search_vector_idx" ON "document_chunks" USING GIN ("search_vector");

-- One vector per chunk and model, little-endian float32, L2-normalised.
CREATE TABLE "chunk_embeddings" (
    "chunk_id" INTEGER NOT NULL,
    "model" TEXT NOT NULL,
    "embedding" BYTEA NOT NULL,
    CONSTRAINT "chunk_embeddings_pkey" PRIMARY KEY ("chunk_id", "model")
);
ALTER TABLE "chunk_embeddings" ADD CONSTRAINT "chunk_embeddings_chunk_id_fkey" FOREIGN KEY ("chunk_id") REFERENCES "document_chunks"("id") ON DELETE CASCADE ON UPDATE CASCADE;
