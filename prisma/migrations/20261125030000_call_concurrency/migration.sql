-- An organisation's ceiling on simultaneous calls, inbound, outbound and web together (modules/calls/concurrency.ts).
ALTER TABLE "organizations" ADD COLUMN "max_concurrent_calls" INTEGER NOT NULL DEFAULT 10;
