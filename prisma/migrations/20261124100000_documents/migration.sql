-- Knowledge documents: where each came from, its processing job (a leased row) and its chunks. Rows that predate this
-- are text documents whose Markdown is their content; they are queued to be chunked.
ALTER TABLE "documents" ADD COLUMN "source_kind" TEXT NOT NULL DEFAULT 'text';
ALTER TABLE "documents" ADD COLUMN "filename" TEXT;
ALTER TABLE "documents" ADD COLUMN "media_type" TEXT NOT NULL DEFAULT 'text/markdown';
ALTER TABLE "documents" ADD COLUMN "size_bytes" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "documents" ADD COLUMN "sha256" TEXT;
ALTER TABLE "documents" ADD COLUMN "source_bytes" BYTEA;
ALTER TABLE "documents" ADD COLUMN "status" TEXT NOT NULL DEFAULT 'pending';
ALTER TABLE "documents" ADD COLUMN "failed_stage" TEXT;
ALTER TABLE "documents" ADD COLUMN "error" TEXT;
ALTER TABLE "documents" ADD COLUMN "chunk_count" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "documents" ADD COLUMN "token_count" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "documents" ADD COLUMN "embedding_model" TEXT;
ALTER TABLE "documents" ADD COLUMN "processed_at" TIMESTAMPTZ(3);
ALTER TABLE "documents" ADD COLUMN "attempts" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "documents" ADD COLUMN "lease_expires_at" TIMESTAMPTZ(3);
ALTER TABLE "documents" ADD COLUMN "lease_token" TEXT;
UPDATE "documents" SET "size_bytes" = octet_length("content");
CREATE UNIQUE INDEX "documents_organization_id_sha256_key" ON "documents"("organization_id", "sha256");
CREATE INDEX "documents_status_lease_expires_at_idx" ON "documents"("status", "lease_expires_at");

CREATE TABLE "document_chunks" (
    "id" SERIAL NOT NULL,
    "document_id" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    "content" TEXT NOT NULL,
    "heading_path" TEXT[] NOT NULL,
    "start_offset" INTEGER NOT NULL,
    "end_offset" INTEGER NOT NULL,
    "token_count" INTEGER NOT NULL,
    CONSTRAINT "document_chunks_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "document_chunks_document_id_position_key" ON "document_chunks"("document_id", "position");
ALTER TABLE "document_chunks" ADD CONSTRAINT "document_chunks_document_id_fkey" FOREIGN KEY ("document_id") REFERENCES "documents"("id") ON DELETE CASCADE ON UPDATE CASCADE;
