-- Website widget keys: a public key a page's script tag carries to start browser calls to one assistant, from the
-- listed origins only, within its own per-minute limit and concurrency cap; and the key that started each call.

-- CreateTable
CREATE TABLE "widget_keys" (
    "id" SERIAL NOT NULL,
    "organization_id" INTEGER NOT NULL,
    "assistant_id" INTEGER NOT NULL,
    "public_key" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "allowed_origins" TEXT[] NOT NULL,
    "rate_limit_per_minute" INTEGER NOT NULL,
    "max_concurrent_calls" INTEGER NOT NULL,
    "button_label" TEXT,
    "button_color" TEXT,
    "greeting" TEXT,
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "widget_keys_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "widget_keys_public_key_key" ON "widget_keys"("public_key");

-- CreateIndex
CREATE INDEX "widget_keys_organization_id_id_idx" ON "widget_keys"("organization_id", "id");

-- CreateIndex
CREATE INDEX "widget_keys_assistant_id_idx" ON "widget_keys"("assistant_id");

-- AddForeignKey
ALTER TABLE "widget_keys" ADD CONSTRAINT "widget_keys_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "widget_keys" ADD CONSTRAINT "widget_keys_assistant_id_fkey" FOREIGN KEY ("assistant_id") REFERENCES "assistants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AlterTable
ALTER TABLE "calls" ADD COLUMN "widget_key_id" INTEGER;

-- CreateIndex
CREATE INDEX "calls_widget_key_id_status_idx" ON "calls"("widget_key_id", "status");

-- AddForeignKey
ALTER TABLE "calls" ADD CONSTRAINT "calls_widget_key_id_fkey" FOREIGN KEY ("widget_key_id") REFERENCES "widget_keys"("id") ON DELETE SET NULL ON UPDATE CASCADE;
