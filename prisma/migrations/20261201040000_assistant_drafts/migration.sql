-- An assistant's draft: changes saved without going live, which test runs use until they are published; and on a
-- test run whether it tested the draft.

-- AlterTable
ALTER TABLE "assistants" ADD COLUMN "draft" JSONB,
ADD COLUMN "draft_updated_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "test_runs" ADD COLUMN "draft" BOOLEAN NOT NULL DEFAULT false;
