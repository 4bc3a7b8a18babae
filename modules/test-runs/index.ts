// The public face of modules/test-runs/: what code outside it (other modules, the API, the call runtime, the benchmarks)
// may use, and nothing else, so its other files can change without a search through both processes. Files inside the
// module import one another directly, never this one (docs/architecture.md, "Import rules").

export { judgeAll, type JudgeAnswer } from './assertions.js';
export {
  type ClaimedRun,
  claimTestRun,
  failExhaustedRuns,
  finishTestRun,
  releaseTestRun,
  renewLease,
  type RunOutcome,
  saveProgress,
  TEST_RUN_CANCEL_CHANNEL,
  TEST_RUN_NOTIFY_CHANNEL,
} from './queue.js';
export {
  AssistantTestRunParams,
  PlaybookTestRunCreate,
  PlaybookTestRunParams,
  type RepetitionOut,
  TestRun,
  TestRunCreate,
  TestRunListQuery,
  TestRunParams,
  type TotalsOut,
  type UsageOut,
} from './schemas.js';
export { cancelTestRun, createAssistantTestRun, createPlaybookTestRun, getTestRun, listTestRuns } from './service.js';
