-- An organisation's privacy mode: full (what calls say is kept) or metadata_only (never their words or audio).

-- AlterTable
ALTER TABLE "organizations" ADD COLUMN "privacy_mode" TEXT NOT NULL DEFAULT 'full';
