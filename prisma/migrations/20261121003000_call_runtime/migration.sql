-- AlterTable
ALTER TABLE "calls" ADD COLUMN     "analysis_error" TEXT,
ADD COLUMN     "metrics" JSONB,
ADD COLUMN     "missing_variables" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "outcomes" JSONB,
ADD COLUMN     "summary" TEXT;

-- CreateTable
CREATE TABLE "call_turns" (
    "id" SERIAL NOT NULL,
    "call_id" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    "role" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "start_ms" INTEGER NOT NULL,
    "end_ms" INTEGER NOT NULL,
    "interrupted" BOOLEAN NOT NULL DEFAULT false,
    "tool_calls" JSONB,
    "metrics" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "call_turns_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "call_recordings" (
    "id" SERIAL NOT NULL,
    "call_id" INTEGER NOT NULL,
    "track" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "storage_key" TEXT NOT NULL,
    "duration_ms" INTEGER NOT NULL,
    "size_bytes" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "call_recordings_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "call_turns_call_id_position_key" ON "call_turns"("call_id", "position");

-- CreateIndex
CREATE UNIQUE INDEX "call_recordings_call_id_track_key" ON "call_recordings"("call_id", "track");

-- AddForeignKey
ALTER TABLE "call_turns" ADD CONSTRAINT "call_turns_call_id_fkey" FOREIGN KEY ("call_id") REFERENCES "calls"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "call_recordings" ADD CONSTRAINT "call_recordings_call_id_fkey" FOREIGN KEY ("call_id") REFERENCES "calls"("id") ON DELETE CASCADE ON UPDATE CASCADE;
