import type { TestRun } from '../../prisma/generated/client.js';
import type { TotalsOut } from './schemas.js';

// The payload of `test_run.completed`, recorded in the transaction that ends the run (modules/test-runs/queue.ts).
// It says how the run ended and its figures; the transcripts and assertion results are read from the run itself
// (GET /api/test-runs/{test_run_id}), so a webhook stays small whatever the run's size. docs/test-runs.md.

type EndedRun = Pick<
  TestRun,
  'id' | 'assistantId' | 'playbookId' | 'status' | 'passRate' | 'usage' | 'error' | 'attempts' | 'createdAt' | 'startedAt' | 'completedAt'
>;

export function testRunEventPayload(run: EndedRun): Record<string, unknown> {
  const totals = run.usage as TotalsOut | null;
  return {
    test_run_id: run.id,
    assistant_id: run.assistantId,
    playbook_id: run.playbookId,
    status: run.status,
    pass_rate: run.passRate,
    repetitions: totals?.repetitions ?? 0,
    passed: totals?.passed ?? 0,
    usage: totals?.usage.total ?? null,
    error: run.error,
    attempts: run.attempts,
    created_at: run.createdAt.toISOString(),
    started_at: run.startedAt?.toISOString() ?? null,
    completed_at: run.completedAt?.toISOString() ?? null,
  };
}
