-- Indexes the campaign dispatcher reads on every tick: a campaign's calls started in the last minute (its pacing), and
-- the attempts under way across campaigns (settled when their call ends).
DROP INDEX "calls_campaign_id_idx";
CREATE INDEX "calls_campaign_id_created_at_idx" ON "calls"("campaign_id", "created_at");
DROP INDEX "campaign_contacts_last_call_id_idx";
CREATE INDEX "campaign_contacts_state_last_call_id_idx" ON "campaign_contacts"("state", "last_call_id");
