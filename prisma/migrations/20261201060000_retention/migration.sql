-- Retention: how long an organisation keeps recordings and transcripts, when the job deleted a call's, and the audit
-- of each deletion.

-- AlterTable
ALTER TABLE "organizations" ADD COLUMN "recording_retention_days" INTEGER,
ADD COLUMN "transcript_retention_days" INTEGER;

-- AlterTable
ALTER TABLE "calls" ADD COLUMN "recordings_deleted_at" TIMESTAMPTZ(3),
ADD COLUMN "transcript_deleted_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "data_deletions" (
    "id" SERIAL NOT NULL,
    "organization_id" INTEGER NOT NULL,
    "call_sid" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "items" INTEGER NOT NULL,
    "deleted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "data_deletions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "data_deletions_organization_id_id_idx" ON "data_deletions"("organization_id", "id");

-- The job's search: ended calls whose recordings or transcript are still there.
CREATE INDEX "calls_retention_idx" ON "calls"("organization_id", "ended_at") WHERE "ended_at" IS NOT NULL AND ("recordings_deleted_at" IS NULL OR "transcript_deleted_at" IS NULL);
