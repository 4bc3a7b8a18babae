-- The trace context of the request that created a call, so the worker's call span joins the same trace.

-- AlterTable
ALTER TABLE "calls" ADD COLUMN "trace_parent" TEXT;
