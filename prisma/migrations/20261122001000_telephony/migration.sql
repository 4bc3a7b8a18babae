-- AlterTable
ALTER TABLE "calls" ADD COLUMN     "campaign_id" INTEGER,
ADD COLUMN     "idempotency_hash" TEXT,
ADD COLUMN     "idempotency_key" TEXT,
ADD COLUMN     "livekit_room" TEXT,
ADD COLUMN     "phone_number_id" INTEGER,
ADD COLUMN     "transport" TEXT NOT NULL DEFAULT 'sip';

-- CreateTable
CREATE TABLE "phone_connections" (
    "id" SERIAL NOT NULL,
    "organization_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "sip_address" TEXT NOT NULL,
    "sip_transport" TEXT NOT NULL DEFAULT 'udp',
    "username" TEXT,
    "password" TEXT,
    "livekit_trunk_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "phone_connections_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "phone_numbers" (
    "id" SERIAL NOT NULL,
    "organization_id" INTEGER NOT NULL,
    "phone_connection_id" INTEGER NOT NULL,
    "number" TEXT NOT NULL,
    "label" TEXT,
    "assistant_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "phone_numbers_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "phone_connections_organization_id_idx" ON "phone_connections"("organization_id");

-- CreateIndex
CREATE INDEX "phone_numbers_organization_id_idx" ON "phone_numbers"("organization_id");

-- CreateIndex
CREATE INDEX "phone_numbers_phone_connection_id_idx" ON "phone_numbers"("phone_connection_id");

-- CreateIndex
CREATE INDEX "phone_numbers_assistant_id_idx" ON "phone_numbers"("assistant_id");

-- CreateIndex
CREATE UNIQUE INDEX "phone_numbers_number_key" ON "phone_numbers"("number");

-- CreateIndex
CREATE INDEX "calls_organization_id_status_created_at_idx" ON "calls"("organization_id", "status", "created_at");

-- CreateIndex
CREATE INDEX "calls_phone_number_id_idx" ON "calls"("phone_number_id");

-- CreateIndex
CREATE INDEX "calls_campaign_id_idx" ON "calls"("campaign_id");

-- CreateIndex
CREATE UNIQUE INDEX "calls_organization_id_idempotency_key_key" ON "calls"("organization_id", "idempotency_key");

-- AddForeignKey
ALTER TABLE "calls" ADD CONSTRAINT "calls_phone_number_id_fkey" FOREIGN KEY ("phone_number_id") REFERENCES "phone_numbers"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "phone_connections" ADD CONSTRAINT "phone_connections_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_phone_connection_id_fkey" FOREIGN KEY ("phone_connection_id") REFERENCES "phone_connections"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_assistant_id_fkey" FOREIGN KEY ("assistant_id") REFERENCES "assistants"("id") ON DELETE SET NULL ON UPDATE CASCADE;
