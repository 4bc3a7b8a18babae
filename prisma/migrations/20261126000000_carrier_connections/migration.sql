-- Phone connections of a carrier kind (Twilio): calls dialled through the carrier's REST API and carried on its Media
-- Streams, without LiveKit. Their SIP address is unused.
ALTER TABLE "phone_connections" ADD COLUMN "kind" TEXT NOT NULL DEFAULT 'sip';
ALTER TABLE "phone_connections" ALTER COLUMN "sip_address" DROP NOT NULL;
ALTER TABLE "phone_connections" ADD COLUMN "account_sid" TEXT;
ALTER TABLE "phone_connections" ADD COLUMN "auth_token" TEXT;

ALTER TABLE "calls" ADD COLUMN "detect_voicemail" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "calls" ADD COLUMN "answered_by" TEXT;
ALTER TABLE "calls" ADD COLUMN "dial_requested_at" TIMESTAMPTZ(3);
