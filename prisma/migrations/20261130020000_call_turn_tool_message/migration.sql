-- An assistant turn that is one of a tool's spoken messages (on_start, on_slow, on_failure), not a reply: the
-- transcript says what it is, and analytics does not take its latency for the reply's.

-- AlterTable
ALTER TABLE "call_turns" ADD COLUMN "tool_message" TEXT;
