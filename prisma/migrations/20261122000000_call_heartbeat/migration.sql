-- AlterTable
ALTER TABLE "calls" ADD COLUMN     "heartbeat_at" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "calls_status_heartbeat_at_idx" ON "calls"("status", "heartbeat_at");
