-- A call that runs its assistant's draft rather than its current version: a test call from the builder.

-- AlterTable
ALTER TABLE "calls" ADD COLUMN "assistant_draft" BOOLEAN NOT NULL DEFAULT false;
