-- Warm transfers: the consultation with the person a transfer calls, shared between the call's process and the API
-- process that receives the carrier's callbacks about it.

-- CreateTable
CREATE TABLE "warm_transfers" (
    "id" SERIAL NOT NULL,
    "token" TEXT NOT NULL,
    "call_id" INTEGER NOT NULL,
    "consult_call_sid" TEXT,
    "state" TEXT NOT NULL DEFAULT 'dialing',
    "answered_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "warm_transfers_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "warm_transfers_token_key" ON "warm_transfers"("token");

-- CreateIndex
CREATE INDEX "warm_transfers_call_id_idx" ON "warm_transfers"("call_id");

-- AddForeignKey
ALTER TABLE "warm_transfers" ADD CONSTRAINT "warm_transfers_call_id_fkey" FOREIGN KEY ("call_id") REFERENCES "calls"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- A transfer tool's `warm` mode used to mean "speak the handoff message first", which every mode now does; it now
-- means a consultation with the person called. Stored tools keep the behaviour they had.
UPDATE "tools" SET "config" = jsonb_set("config", '{transfer,mode}', '"cold"')
WHERE "type" = 'transfer_call' AND "config" -> 'transfer' ->> 'mode' = 'warm';
