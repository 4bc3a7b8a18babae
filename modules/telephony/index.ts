// The public face of modules/telephony/: what code outside it (other modules, the API, the call runtime, the benchmarks)
// may use, and nothing else, so its other files can change without a search through both processes. Files inside the
// module import one another directly, never this one (docs/architecture.md, "Import rules").

export { carrierOfCall, carrierOfConnection, type CarrierSettings } from './carrier-calls.js';
export { applyStoredReport, startCarrierReportQueue, storeCarrierReport } from './carrier-reports.js';
export { type CarrierAccount, type CarrierAdapter, CarrierRequestError } from './carriers/carrier.js';
export { carrierStatusPath, machineDetectionPath, MEDIA_STREAM_PATH, VOICE_WEBHOOK_PATH, warmTransferPath } from './carriers/paths.js';
export { carrierOfKind } from './carriers/registry.js';
export { validTwilioSignature } from './carriers/twilio/signature.js';
export { BUSY_TWIML, connectStreamTwiml, NOT_TAKEN_TWIML, REJECT_TWIML, UNAVAILABLE_TWIML } from './carriers/twilio/twiml.js';
export { type Dialler, startDialler } from './dialler.js';
export { createLiveKitWebCall } from './livekit-web-calls.js';
export { type ConsultTrunk, consultTrunkOfCall } from './livekit-consult-trunk.js';
export { type LiveKitConfig, LiveKitTelephony, type OutboundTrunk, sipTrunkArguments } from './livekit.js';
export { initiateCall } from './outbound-calls.js';
export { createPhoneConnection, deletePhoneConnection, getPhoneConnection, listPhoneConnections, updatePhoneConnection } from './phone-connections.js';
export { createPhoneNumber, deletePhoneNumber, getPhoneNumber, listPhoneNumbers, updatePhoneNumber } from './phone-numbers.js';
export { connectionWarnings, publicUrlProblem } from './public-url-check.js';
export {
  awaitWarmTransferOutcome,
  emitWarmTransfer,
  findWarmTransfer,
  moveWarmTransfer,
  openWarmTransfer,
  resetWarmTransfers,
  setConsultCallSid,
  WARM_TRANSFER_CHANNEL,
  type WarmTransferOutcome,
  type WarmTransferRow,
} from './warm-transfers.js';
export {
  IdempotencyHeaders,
  InitiateCall,
  InitiateCallResponse,
  PhoneConnection,
  PhoneConnectionCreate,
  PhoneConnectionParams,
  PhoneConnectionUpdate,
  PhoneNumber,
  PhoneNumberCreate,
  PhoneNumberParams,
  PhoneNumberUpdate,
  WebCall,
  WebCallCreate,
} from './schemas.js';
