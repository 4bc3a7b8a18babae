-- A tool has a type (http, end_call, transfer_call, send_dtmf), and a name unique in its organisation: the model calls
-- tools by name.
ALTER TABLE "tools" ADD COLUMN "type" TEXT NOT NULL DEFAULT 'http';
CREATE UNIQUE INDEX "tools_organization_id_name_key" ON "tools"("organization_id", "name");
