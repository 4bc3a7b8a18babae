-- An assistant's own privacy mode (null follows its organisation's), and the mode each call ran under.
ALTER TABLE "assistants" ADD COLUMN "privacy_mode" TEXT;
ALTER TABLE "calls" ADD COLUMN "privacy_mode" TEXT;
