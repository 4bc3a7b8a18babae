// The public face of modules/calls/: what code outside it (other modules, the API, the call runtime, the benchmarks)
// may use, and nothing else, so its other files can change without a search through both processes. Files inside the
// module import one another directly, never this one (docs/architecture.md, "Import rules").

export { ANSWERED_BY_CHANNEL, emitAnsweredBy, onAnsweredBy, recordAnsweredBy } from './answered-by.js';
export type { CallAudioLink, CallAudioRunner, TranscriptLine } from './audio-runner.js';
export { ACTIVE_STATUSES, activeCalls, admitCall, admitCalls } from './concurrency.js';
export type { ToolCallEntry, TranscriptEntry } from './events.js';
export { exportCalls, neutralizeFormula } from './export.js';
export {
  type CallRow,
  claimNextOutboundCall,
  type DialGate,
  endUnstartedCall,
  finishCall,
  markCallRinging,
  markCallStarted,
  openInboundCall,
  openWebCall,
  type OutboundTransport,
  queueOutboundCall,
  requeueUnsentDial,
  roomOfCall,
} from './lifecycle.js';
export { getPriceTable, replacePriceOverrides } from './price-table.js';
export { PriceOverrides, PriceTable } from './prices.js';
export { findRecording, getCall, getTranscript, listCalls } from './read.js';
export {
  Call,
  CALL_DIRECTIONS,
  CALL_TRANSPORTS,
  CallExportQuery,
  CallListQuery,
  CallParams,
  CallStartLookupResult,
  type CollectedValuesRecord,
  RecordingParams,
  ToolMessageKind,
  TranscriptTurn,
  TurnDecision,
  TurnRetrieval,
} from './schemas.js';
export { CALL_STARTING, lookUpCall, recordCallStartLookup, type StartLookup, type StartLookupConfig } from './start-lookup.js';
export { CALL_STATUSES, DIALLING, IN_PROGRESS, NOT_STARTED, TERMINAL, type UnstartedEnd } from './statuses.js';
export { appendCallTurn, CallNotRunnableError, findCall, loadContactFields, type StoredRecording, type StoredTurn, touchCallHeartbeat } from './store.js';
export { type CallTransferReport, recordCallTransfer } from './transfer-event.js';
export {
  abandonUnjoinedCall,
  endStaleUnstartedCalls,
  JOIN_GRACE_MS,
  LOST_DIAL_AFTER_MS,
  type UnstartedCallLimits,
  WEB_JOIN_WINDOW_MS,
  WIDGET_JOIN_WINDOW_MS,
} from './unstarted.js';
export type { ModelUsage } from './usage.js';
export type { CallCost } from './usage-schemas.js';
export { DataDeletion, expireCallData, type Expiry, listDataDeletions, RETENTION_BATCH } from './retention.js';
export {
  callPrivacyMode,
  forgetCallVariables,
  PRIVACY_MODES,
  type PrivacyMode,
  privacyModeOf,
  redactCallVariables,
  strictestPrivacyMode,
  turnAsKept,
  withoutWords,
} from './privacy.js';
export { findPii, maskPii, type PiiKind, type PiiSpan } from './redaction/pii.js';
export { redactText, redactTurn, redactValue } from './redaction/redact.js';
