-- Playbooks become procedures: when to use them, whether they are on, their goal, instructions, examples and values to
-- collect, and the tools they may use. Their names become handoffs the model calls, so they are unique per
-- organisation; older duplicates get their id appended first.
UPDATE "playbooks" p SET "name" = p."name" || ' (' || p."id" || ')'
WHERE EXISTS (SELECT 1 FROM "playbooks" q WHERE q."organization_id" = p."organization_id" AND q."name" = p."name" AND q."id" < p."id");
ALTER TABLE "playbooks" ADD COLUMN "description" TEXT NOT NULL DEFAULT '';
ALTER TABLE "playbooks" ADD COLUMN "enabled" BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE "playbooks" ADD COLUMN "config" JSONB NOT NULL DEFAULT '{}';
CREATE UNIQUE INDEX "playbooks_organization_id_name_key" ON "playbooks"("organization_id", "name");

CREATE TABLE "playbook_tools" (
    "playbook_id" INTEGER NOT NULL,
    "tool_id" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    CONSTRAINT "playbook_tools_pkey" PRIMARY KEY ("playbook_id", "tool_id")
);
CREATE INDEX "playbook_tools_tool_id_idx" ON "playbook_tools"("tool_id");
ALTER TABLE "playbook_tools" ADD CONSTRAINT "playbook_tools_playbook_id_fkey" FOREIGN KEY ("playbook_id") REFERENCES "playbooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "playbook_tools" ADD CONSTRAINT "playbook_tools_tool_id_fkey" FOREIGN KEY ("tool_id") REFERENCES "tools"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The values a call's playbooks collected.
ALTER TABLE "calls" ADD COLUMN "collected_values" JSONB;

-- Test runs: durable jobs the agent workers claim with a lease.
CREATE TABLE "test_runs" (
    "id" SERIAL NOT NULL,
    "organization_id" INTEGER NOT NULL,
    "assistant_id" INTEGER,
    "playbook_id" INTEGER,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "request" JSONB NOT NULL,
    "results" JSONB NOT NULL DEFAULT '[]',
    "pass_rate" DOUBLE PRECISION,
    "usage" JSONB,
    "error" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lease_expires_at" TIMESTAMPTZ(3),
    "lease_token" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "started_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "test_runs_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "test_runs_organization_id_created_at_idx" ON "test_runs"("organization_id", "created_at");
CREATE INDEX "test_runs_status_lease_expires_at_idx" ON "test_runs"("status", "lease_expires_at");
ALTER TABLE "test_runs" ADD CONSTRAINT "test_runs_organization_id_fkey" FOREIGN KEY ("organization_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "test_runs" ADD CONSTRAINT "test_runs_assistant_id_fkey" FOREIGN KEY ("assistant_id") REFERENCES "assistants"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "test_runs" ADD CONSTRAINT "test_runs_playbook_id_fkey" FOREIGN KEY ("playbook_id") REFERENCES "playbooks"("id") ON DELETE CASCADE ON UPDATE CASCADE;
