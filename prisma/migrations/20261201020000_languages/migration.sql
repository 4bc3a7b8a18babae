-- Several languages in one assistant: the other languages it speaks, each with its voice and welcome; and on each
-- transcript turn the language it was spoken in.

-- AlterTable
ALTER TABLE "assistants" ADD COLUMN "languages" JSONB NOT NULL DEFAULT '[]';

-- AlterTable
ALTER TABLE "call_turns" ADD COLUMN "language" TEXT;
