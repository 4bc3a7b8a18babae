-- Campaigns (modules/campaigns/): the campaign and where each of its contacts stands. `campaign_contacts` existed
-- empty since contacts arrived; it gains its state and its foreign key to the campaign.
CREATE TABLE "campaigns" (
    "id" SERIAL NOT NULL,
    "organization_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "assistant_id" INTEGER,
    "state" TEXT NOT NULL DEFAULT 'draft',
    "state_reason" TEXT,
    "from_numbers" JSONB NOT NULL,
    "number_rotation" TEXT NOT NULL DEFAULT 'round_robin',
    "schedule" JSONB NOT NULL,
    "pacing" JSONB NOT NULL,
    "retry" JSONB NOT NULL,
    "voicemail" JSONB NOT NULL,
    "circuit_breaker" JSONB NOT NULL,
    "variables" JSONB NOT NULL DEFAULT '{}',
    "dial_count" INTEGER NOT NULL DEFAULT 0,
    "started_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "campaigns_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "campaigns_organization_id_id_idx" ON "campaigns"("organization_id", "id");
CREATE INDEX "campaigns_state_idx" ON "campaigns"("state");
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_assistant_id_fkey" FOREIGN KEY ("assistant_id") REFERENCES "assistants"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- Rows of campaigns that never existed cannot be kept once the foreign key holds.
DELETE FROM "campaign_contacts";
ALTER TABLE "campaign_contacts" ADD COLUMN "state" TEXT NOT NULL DEFAULT 'pending';
ALTER TABLE "campaign_contacts" ADD COLUMN "attempts" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "campaign_contacts" ADD COLUMN "next_attempt_at" TIMESTAMPTZ(3);
ALTER TABLE "campaign_contacts" ADD COLUMN "last_outcome" TEXT;
ALTER TABLE "campaign_contacts" ADD COLUMN "last_call_id" INTEGER;
ALTER TABLE "campaign_contacts" ADD COLUMN "variables" JSONB NOT NULL DEFAULT '{}';
ALTER TABLE "campaign_contacts" ADD COLUMN "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
CREATE INDEX "campaign_contacts_campaign_id_state_next_attempt_at_idx" ON "campaign_contacts"("campaign_id", "state", "next_attempt_at");
CREATE INDEX "campaign_contacts_last_call_id_idx" ON "campaign_contacts"("last_call_id");
ALTER TABLE "campaign_contacts" ADD CONSTRAINT "campaign_contacts_campaign_id_fkey" FOREIGN KEY ("campaign_id") REFERENCES "campaigns"("id") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "calls" ADD COLUMN "campaign_attempt" INTEGER;
-- One call per attempt of a contact in a campaign, whatever happens to the processes placing them. Calls of no
-- campaign have nulls there, which a unique index never compares equal.
CREATE UNIQUE INDEX "calls_campaign_attempt_key" ON "calls"("campaign_id", "contact_id", "campaign_attempt");
