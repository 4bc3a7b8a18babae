-- The retention job's index as the schema declares it (a plain index on when an organisation's calls ended), in place
-- of the partial one the schema cannot express.

-- DropIndex
DROP INDEX IF EXISTS "calls_retention_idx";

-- CreateIndex
CREATE INDEX "calls_retention_idx" ON "calls"("organization_id", "ended_at");
