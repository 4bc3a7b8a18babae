-- An assistant's speech-to-speech model (realtime_settings): off while null, so rows written before it read as off.

-- AlterTable
ALTER TABLE "assistants" ADD COLUMN "realtime_settings" JSONB;
