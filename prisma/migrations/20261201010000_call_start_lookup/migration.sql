-- The call-start lookup: an assistant's settings for it (null reads as its defaults: off), and on each call what the
-- lookup did (answered, timed out, failed), so a team can see why a greeting did not use the caller's name.

-- AlterTable
ALTER TABLE "assistants" ADD COLUMN "call_start_lookup" JSONB;

-- AlterTable
ALTER TABLE "calls" ADD COLUMN "call_start_lookup" JSONB;
