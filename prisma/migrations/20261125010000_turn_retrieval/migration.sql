-- What each assistant turn was given from the knowledge base (documents, chunks, scores, time taken), and one document
-- per URL in an organisation (NULLs, the documents of other sources, are distinct).
ALTER TABLE "call_turns" ADD COLUMN "retrieval" JSONB;
CREATE UNIQUE INDEX "documents_organization_id_source_url_key" ON "documents"("organization_id", "source_url");
