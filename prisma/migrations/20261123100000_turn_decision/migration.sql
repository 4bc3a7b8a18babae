-- Each assistant turn records why the caller's turn before it ended when it did: the verdict, the signal that settled
-- it and the signals behind it (no words of the transcript).
ALTER TABLE "call_turns" ADD COLUMN "turn_decision" JSONB;
