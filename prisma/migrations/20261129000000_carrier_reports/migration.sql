-- Carrier callbacks, stored as they arrive and applied from this queue (modules/telephony/carrier-reports.ts).

-- CreateTable
CREATE TABLE "carrier_reports" (
    "id" SERIAL NOT NULL,
    "call_id" INTEGER NOT NULL,
    "report" JSONB NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "carrier_reports_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "carrier_reports_next_attempt_at_idx" ON "carrier_reports"("next_attempt_at");

-- CreateIndex
CREATE INDEX "carrier_reports_call_id_idx" ON "carrier_reports"("call_id");

-- AddForeignKey
ALTER TABLE "carrier_reports" ADD CONSTRAINT "carrier_reports_call_id_fkey" FOREIGN KEY ("call_id") REFERENCES "calls"("id") ON DELETE CASCADE ON UPDATE CASCADE;
