-- When a dialler claimed a call, on the database's clock: a campaign's per-minute limit counts these.

-- AlterTable
ALTER TABLE "calls" ADD COLUMN "dial_claimed_at" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "calls_campaign_id_dial_claimed_at_idx" ON "calls"("campaign_id", "dial_claimed_at");
